package dev.floe.runtime.guard;

/**
 * Whether the JVM's shutdown has begun. Its hooks run in no order, so Iceberg's may shut its worker
 * pool, or the host its catalog, under a task of floe's: such a failure is the exit's, not the table's.
 */
final class JvmExit {
    private JvmExit() {}

    static boolean begun() {
        Thread probe = new Thread(() -> {});
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException shuttingDown) {
            return true;
        }
    }
}
