package dev.floe.agent;

import com.sun.net.httpserver.HttpHandler;
import dev.floe.agent.boot.IsolatingLoader;
import dev.floe.bootstrap.FloeBridge;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiPredicate;

/**
 * The dispatcher behind {@link FloeBridge}: one guard per class loader that defines table
 * operations or catalogs (iceberg-core's, floe's MapDbCatalog's, a Hive or Glue jar's). The first
 * time an object of such a loader comes through,
 * it creates an {@link IsolatingLoader} over that loader and, in it, that loader's {@link Hooks}:
 * floe's runtime linked against that loader's Iceberg and catalog. Two isolated loaders with two
 * copies of Iceberg get two independent guards, each with its own gate, background thread and
 * MBeans ({@code ,loader=<name>} added to their names).
 *
 * <p>Only JDK types are used here: this class runs in the agent's own loader, which may see no
 * Iceberg at all.
 */
final class LoaderGuards implements FloeBridge.Dispatcher {
    // by name: this loader must not link Hooks, which needs Iceberg
    static final String HOOKS_CLASS = "dev.floe.agent.Hooks";
    private static final FloeBridge.Dispatcher UNGUARDED = new Unguarded();

    private final Path agentJar;
    private final Map<String, String> config;
    private final String source;
    private final BiPredicate<HttpHandler, HttpHandler> restSlot;
    // a guard keeps its loader alive (its classes' parent), so a loader the host drops stays: a
    // host that discards class loaders (a redeploy) keeps one idle guard per discarded loader.
    // Guarded by itself.
    private final Map<ClassLoader, FloeBridge.Dispatcher> guards = new HashMap<>();
    private volatile Last last;

    LoaderGuards(
            Path agentJar, Map<String, String> config, String source, BiPredicate<HttpHandler, HttpHandler> restSlot) {
        this.agentJar = agentJar;
        this.config = config;
        this.source = source;
        this.restSlot = restSlot;
    }

    @Override
    public long beforeCommit(Object ops) {
        return ofOps(ops).beforeCommit(ops);
    }

    @Override
    public void afterCommit(Object ops, Object base, Object metadata, long entered, Throwable thrown) {
        ofOps(ops).afterCommit(ops, base, metadata, entered, thrown);
    }

    @Override
    public long beforeOperation(Object ops) {
        return ofOps(ops).beforeOperation(ops);
    }

    @Override
    public void afterOperation(Object ops, long entered) {
        ofOps(ops).afterOperation(ops, entered);
    }

    @Override
    public void tableLoaded(Object catalog, Object identifier, Object table) {
        if (catalog != null) {
            of(catalog.getClass().getClassLoader()).tableLoaded(catalog, identifier, table);
        }
    }

    @Override
    public void catalogOpened(Object catalog, Object name, Object properties) {
        if (catalog != null) {
            of(catalog.getClass().getClassLoader()).catalogOpened(catalog, name, properties);
        }
    }

    @Override
    public void catalogClosed(Object catalog) {
        if (catalog != null) {
            of(catalog.getClass().getClassLoader()).catalogClosed(catalog);
        }
    }

    private FloeBridge.Dispatcher ofOps(Object ops) {
        return ops == null ? UNGUARDED : of(ops.getClass().getClassLoader());
    }

    private FloeBridge.Dispatcher of(ClassLoader loader) {
        if (loader == null || loader instanceof IsolatingLoader) {
            return UNGUARDED; // the JDK's own (no Iceberg there), or floe's own (its staged operations)
        }
        Last recent = last;
        if (recent != null && recent.loader == loader) {
            return recent.guard; // the common case: one loader commits over and over
        }
        FloeBridge.Dispatcher found;
        synchronized (guards) {
            found = guards.computeIfAbsent(loader, this::create);
        }
        last = new Last(loader, found);
        return found;
    }

    /** The loader seen last and its guard. */
    private record Last(ClassLoader loader, FloeBridge.Dispatcher guard) {}

    private FloeBridge.Dispatcher create(ClassLoader loader) {
        String name = describe(loader);
        java.util.List<String> missing = new java.util.ArrayList<>();
        String instrumented = FloeAgent.provenIn(loader, missing);
        if (!missing.isEmpty()) {
            AgentLog.warn("floe " + FloeAgent.VERSION + " does not guard the Iceberg "
                    + IcebergSupport.detect(loader).version() + " of " + name
                    + ": its advice was not" + " woven into " + missing
                    + " (a class floe does not know the shape of); its commits go on unguarded");
            return UNGUARDED;
        }
        try {
            IsolatingLoader isolated = new IsolatingLoader("floe-guard", agentJar, loader);
            Class<?> hooks = isolated.loadClass(HOOKS_CLASS);
            return (FloeBridge.Dispatcher) hooks.getConstructor(
                            Map.class, String.class, String.class, String.class, String.class, BiPredicate.class)
                    .newInstance(config, source, jmxSuffix(loader), name, instrumented, restSlot);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            AgentLog.error("floe " + FloeAgent.VERSION + " cannot guard the Iceberg of " + name + " (" + cause
                    + "); its commits go on unguarded");
            return UNGUARDED;
        }
    }

    /** MBean name suffix: none for the system class loader, else the loader's name or identity. */
    static String jmxSuffix(ClassLoader loader) {
        if (loader == ClassLoader.getSystemClassLoader()) {
            return "";
        }
        String name = loader.getName() != null ? loader.getName() : "";
        String id = name.matches("[A-Za-z0-9_.\\-]+") ? name + "-" : "";
        return ",loader=" + id + Integer.toHexString(System.identityHashCode(loader));
    }

    static String describe(ClassLoader loader) {
        if (loader == ClassLoader.getSystemClassLoader()) {
            return "the system class loader";
        }
        return "class loader " + (loader.getName() != null ? "'" + loader.getName() + "' " : "")
                + loader.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(loader));
    }

    /** For objects floe does not guard. */
    private static final class Unguarded implements FloeBridge.Dispatcher {
        @Override
        public long beforeCommit(Object ops) {
            return 0;
        }

        @Override
        public void afterCommit(Object ops, Object base, Object metadata, long entered, Throwable thrown) {}

        @Override
        public long beforeOperation(Object ops) {
            return 0;
        }

        @Override
        public void afterOperation(Object ops, long entered) {}

        @Override
        public void tableLoaded(Object catalog, Object identifier, Object table) {}

        @Override
        public void catalogOpened(Object catalog, Object name, Object properties) {}

        @Override
        public void catalogClosed(Object catalog) {}
    }
}
