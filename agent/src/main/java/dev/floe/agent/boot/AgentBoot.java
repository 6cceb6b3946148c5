package dev.floe.agent.boot;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * The agent jar's entry points ({@code Premain-Class}, {@code Agent-Class}, {@code Main-Class}).
 * Everything else in the jar sits in its hidden layer ({@link IsolatingLoader#LAYER}), out of sight
 * of the system class loader, where the JVM puts an agent jar: so floe's catalog, runtime and
 * libraries never shadow the host's own copies in class loaders that ask the system loader first.
 * This class only opens a loader over that layer and hands over; it uses nothing but the JDK.
 */
public final class AgentBoot {
    private AgentBoot() {}

    public static void premain(String args, Instrumentation instrumentation) {
        start(args, instrumentation);
    }

    public static void agentmain(String args, Instrumentation instrumentation) {
        start(args, instrumentation);
    }

    /** The operator CLI. */
    public static void main(String[] args) throws Throwable {
        Path jar = agentJar();
        ClassLoader core = new IsolatingLoader("floe-cli", jar, ClassLoader.getSystemClassLoader());
        Thread.currentThread().setContextClassLoader(core);
        try {
            Class.forName("dev.floe.agent.cli.FloeCli", true, core)
                    .getMethod("main", String[].class)
                    .invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static void start(String args, Instrumentation instrumentation) {
        try {
            Path jar = agentJar();
            ClassLoader core = new IsolatingLoader("floe-agent", jar, ClassLoader.getSystemClassLoader());
            Class.forName("dev.floe.agent.FloeAgent", true, core)
                    .getMethod("start", String.class, Instrumentation.class, Path.class)
                    .invoke(null, args, instrumentation, jar);
        } catch (Throwable e) {
            Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
            System.err.println("[floe] ERROR floe could not start (" + cause + "); the host runs unguarded");
        }
    }

    /** This jar, on disk. */
    static Path agentJar() throws URISyntaxException {
        return Path.of(AgentBoot.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    }
}
