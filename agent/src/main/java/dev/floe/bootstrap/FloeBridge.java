package dev.floe.bootstrap;

/**
 * What the advice calls: the one floe class every class loader sees, because the agent injects it
 * into the bootstrap class loader. It speaks only JDK types, so the Iceberg and catalog classes it
 * is handed may come from any class loader; the {@link Dispatcher} the agent installs finds the
 * guard of the loader they come from. Until one is installed, and whenever it throws, every method
 * does nothing: the host's commit goes on as if floe were absent.
 */
public final class FloeBridge {
    /** Receives the advice's calls; implemented by the agent, per JVM. */
    public interface Dispatcher {
        /** Before a {@code TableOperations.commit(base, metadata)}: 0 when no gate was taken, else 1 + ns waited. */
        long beforeCommit(Object ops);

        void afterCommit(Object ops, Object base, Object metadata, long entered, Throwable thrown);

        /** Before {@code SnapshotProducer.commit()}: as {@link #beforeCommit}. */
        long beforeOperation(Object ops);

        void afterOperation(Object ops, long entered);

        /** A catalog handed the host {@code table}, the one named {@code identifier} in it. */
        void tableLoaded(Object catalog, Object identifier, Object table);

        /** A catalog was initialised with {@code name} and {@code properties}. */
        void catalogOpened(Object catalog, Object name, Object properties);

        /** A catalog's {@code close()} begins: floe's background work no longer uses it. */
        void catalogClosed(Object catalog);
    }

    private static volatile Dispatcher dispatcher;

    private FloeBridge() {}

    /** Installs the agent's dispatcher (once per JVM). */
    public static void install(Dispatcher installed) {
        dispatcher = installed;
    }

    public static long beforeCommit(Object ops) {
        return enter(ops, false);
    }

    public static void afterCommit(Object ops, Object base, Object metadata, long entered, Throwable thrown) {
        Dispatcher d = dispatcher;
        if (d != null && entered > 0) {
            d.afterCommit(ops, base, metadata, entered, thrown);
        }
    }

    public static long beforeOperation(Object ops) {
        return enter(ops, true);
    }

    /** The gate before a commit or a whole operation; whatever goes wrong, none (0). */
    private static long enter(Object ops, boolean operation) {
        Dispatcher d = dispatcher;
        if (d == null) {
            return 0;
        }
        try {
            return operation ? d.beforeOperation(ops) : d.beforeCommit(ops);
        } catch (Throwable e) {
            return 0;
        }
    }

    public static void afterOperation(Object ops, long entered) {
        Dispatcher d = dispatcher;
        if (d != null && entered > 0) {
            d.afterOperation(ops, entered);
        }
    }

    public static void tableLoaded(Object catalog, Object identifier, Object table) {
        Dispatcher d = dispatcher;
        if (d != null && table != null) {
            d.tableLoaded(catalog, identifier, table);
        }
    }

    public static void catalogOpened(Object catalog, Object name, Object properties) {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.catalogOpened(catalog, name, properties);
        }
    }

    public static void catalogClosed(Object catalog) {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.catalogClosed(catalog);
        }
    }
}
