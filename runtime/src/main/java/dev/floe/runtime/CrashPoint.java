package dev.floe.runtime;

/**
 * Named points where a test can make this JVM die as if killed: with {@code
 * -Dfloe.internal.halt-at=<name>}, the first thread to reach that point halts the JVM at once (no
 * shutdown hooks, no finally blocks), which is how floe's crash tests reach each step of a rebuild
 * reliably; {@code <name>@<n>} halts at its n-th reach (a step of the second rebuild, say). Without
 * the property, reaching a point costs one string comparison.
 *
 * <p>It lives in the runtime (shipped inside the agent jar), not in the catalog adapter hosts carry:
 * the one point inside a catalog transaction, {@code catalog.swap-uncommitted}, is reached through
 * the swap's {@code insideTransaction} callback ({@link ScratchSwap}). An in-place install ({@link
 * InPlace}) has two of its own: {@code inplace.job-recorded} (its reclaim job recorded, its commit
 * not made) and {@code inplace.committed} (its commit made, its journal not cleared).
 */
public final class CrashPoint {
    public static final String PROPERTY = "floe.internal.halt-at";
    /** Exit status of a halted JVM, as after {@code kill -9}. */
    public static final int HALT_STATUS = 137;

    private static final String CONFIGURED = System.getProperty(PROPERTY);
    private static final String TARGET = CONFIGURED == null ? null : CONFIGURED.replaceFirst("@\\d+$", "");
    private static final int NTH = CONFIGURED == null || CONFIGURED.equals(TARGET)
            ? 1
            : Integer.parseInt(CONFIGURED.substring(TARGET.length() + 1));
    private static final java.util.concurrent.atomic.AtomicInteger REACHED =
            new java.util.concurrent.atomic.AtomicInteger();

    private CrashPoint() {}

    /**
     * Halts the JVM if {@code name} is the configured crash point, at once, whatever other threads are
     * doing: a catalog commit they have in progress is cut short like any other write, which the
     * catalog's journal recovers from (see docs/mapdb-catalog.md, "Surviving a crash at any instant").
     */
    public static void reach(String name) {
        if (TARGET != null && TARGET.equals(name) && REACHED.incrementAndGet() == NTH) {
            System.err.println("[floe] halting at crash point " + CONFIGURED);
            System.err.flush();
            Runtime.getRuntime().halt(HALT_STATUS);
        }
    }
}
