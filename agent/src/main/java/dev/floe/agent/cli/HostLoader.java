package dev.floe.agent.cli;

import dev.floe.agent.boot.IsolatingLoader;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the CLI again in a class loader over the host's libraries: those over the platform loader,
 * and floe's classes from the agent jar's hidden layer over them, so they see the host's Iceberg (and
 * its floe catalog, if it has one). A class of its own because it links against the boot {@link
 * IsolatingLoader}, which the new loader does not see: {@link FloeCli} itself must load there.
 */
final class HostLoader {
    private HostLoader() {}

    static int run(String[] args, String classPath) {
        List<URL> urls = new ArrayList<>();
        Path agentJar;
        try {
            agentJar = Path.of(FloeCli.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            for (Path entry : FloeCli.expand(classPath)) {
                urls.add(entry.toUri().toURL());
            }
        } catch (IllegalArgumentException | IOException | URISyntaxException e) {
            System.err.println("floe: " + e.getMessage());
            return FloeCli.NO_ICEBERG;
        }
        URLClassLoader host =
                new URLClassLoader("floe-cli-host", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        ClassLoader loader = new IsolatingLoader("floe-cli", agentJar, host);
        Thread.currentThread().setContextClassLoader(loader);
        try {
            Class<?> main = Class.forName(FloeCli.class.getName(), true, loader);
            return (Integer) main.getMethod("execute", String[].class).invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("floe CLI failed", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("floe CLI cannot start in its class loader", e);
        }
    }
}
