package dev.floe.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import net.bytebuddy.dynamic.loading.ClassInjector;

/**
 * Puts {@link dev.floe.bootstrap.FloeBridge} where every class loader finds it: the bootstrap class
 * loader. Its classes are read from the agent jar's hidden layer and defined there directly, or, if
 * this JVM does not allow that, appended to the bootstrap search path as a small jar in a temporary
 * folder (deleted when the JVM exits).
 */
final class BridgeInjection {
    static final String[] BRIDGE_CLASSES = {"dev.floe.bootstrap.FloeBridge", "dev.floe.bootstrap.FloeBridge$Dispatcher"
    };

    private BridgeInjection() {}

    /** Injects the bridge's classes, read from the agent's hidden layer through {@code layer}. */
    static void intoBootstrap(Instrumentation instrumentation, ClassLoader layer) throws IOException {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        for (String name : BRIDGE_CLASSES) {
            try (InputStream in = layer.getResourceAsStream(name.replace('.', '/') + ".class")) {
                if (in == null) {
                    throw new IllegalStateException("the agent jar lacks " + name);
                }
                classes.put(name, in.readAllBytes());
            }
        }
        // defined straight into the bootstrap loader when Byte Buddy can (no file, and the JVM keeps its
        // class-data sharing); else appended to its search path as a small jar, as other agents do
        ClassInjector.UsingUnsafe.Factory unsafe = ClassInjector.UsingUnsafe.Factory.resolve(instrumentation);
        if (unsafe.isAvailable()) {
            unsafe.make(null).injectRaw(classes);
            return;
        }
        Path folder = Files.createTempDirectory("floe-bridge");
        folder.toFile().deleteOnExit();
        ClassInjector.UsingInstrumentation.of(
                        folder.toFile(), ClassInjector.UsingInstrumentation.Target.BOOTSTRAP, instrumentation)
                .injectRaw(classes);
        try (var files = Files.list(folder)) {
            files.forEach(f -> f.toFile().deleteOnExit());
        } catch (UncheckedIOException e) {
            // left for the temp folder's own clean-up
        }
    }
}
