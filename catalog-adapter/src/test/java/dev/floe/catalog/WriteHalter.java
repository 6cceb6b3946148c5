package dev.floe.catalog;

import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;

import java.io.File;
import java.util.ArrayDeque;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import org.mapdb.volume.Volume;

/**
 * Test-only: halts this JVM, as {@code kill -9} would, just before the k-th write to a file that a
 * catalog makes once {@link #arm armed}. A "write" is every call that changes a MapDB volume backed
 * by a file: MapDB's copy of the commit into the catalog file's volume, its sync, and floe's writes
 * of the journaled commit into the file (MapDB's write-ahead log is in memory; were it a file, its
 * writes would count too, except when armed for a catalog's creation). A volume's calls to its own
 * methods are one write; a volume's calls to another (floe's volume writing the file) are counted.
 * Armed for commits only, it counts the writes inside MapDB's {@code StoreWAL.commit}, from its log
 * of the commit on; armed for a catalog's creation, those to the file it is built in, up to the
 * first write to the created file. Byte Buddy adds the checks to every volume class, and to {@code
 * StoreWAL.commit}, as they are loaded.
 */
public final class WriteHalter {
    /** Exit status of a halted JVM, as after {@code kill -9}. */
    static final int HALT_STATUS = 137;

    private static final String VOLUME = "org.mapdb.volume.Volume";
    private static final String JOURNALED_VOLUME = "dev.floe.catalog.JournaledVolume";
    private static final String STORE_WAL = "org.mapdb.StoreWAL";
    private static final ThreadLocal<ArrayDeque<Object>> CALLS = ThreadLocal.withInitial(ArrayDeque::new);
    private static final ThreadLocal<int[]> IN_COMMIT = ThreadLocal.withInitial(() -> new int[1]);
    private static volatile int target = -1;
    private static volatile boolean commitsOnly;
    private static int count;

    private WriteHalter() {}

    /** Instruments the volumes of MapDB and floe; call before the first catalog is opened. */
    static void install() {
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                .with(AgentBuilder.Listener.StreamWriting.toSystemError().withErrorsOnly())
                // by name: no volume class is loaded before this, so none needs to be retransformed
                .ignore(not(nameStartsWith("org.mapdb.volume.")
                        .or(named(JOURNALED_VOLUME))
                        .or(named(STORE_WAL))))
                .type(named(VOLUME).or(hasSuperType(named(VOLUME))))
                .transform((builder, type, loader, module, domain) -> builder.visit(Advice.to(Step.class)
                        .on(not(isAbstract())
                                .and(namedOneOf(
                                        "putLong",
                                        "putInt",
                                        "putByte",
                                        "putData",
                                        "putDataOverlap",
                                        "putUnsignedShort",
                                        "putUnsignedByte",
                                        "putSixLong",
                                        "putPackedLong",
                                        "clear",
                                        "clearOverlap",
                                        "ensureAvailable",
                                        "truncate",
                                        "sync",
                                        "deleteFile")))))
                .type(named(STORE_WAL))
                .transform((builder, type, loader, module, domain) ->
                        builder.visit(Advice.to(Commit.class).on(named("commit").and(not(isAbstract())))))
                .installOn(ByteBuddyAgent.install());
    }

    /**
     * Halts before the {@code k}-th write from now (1 is the next one); with {@code commitsOnly},
     * counting only writes inside MapDB's commit.
     */
    static void arm(int k, boolean commitsOnly) {
        synchronized (WriteHalter.class) {
            count = 0;
            WriteHalter.commitsOnly = commitsOnly;
            target = k;
        }
    }

    /** Writes counted since {@link #arm}. */
    static synchronized int count() {
        return count;
    }

    /** Called by the advice before each volume write. */
    public static void enter(Object volume, String method) {
        ArrayDeque<Object> calls = CALLS.get();
        boolean nested = false;
        for (Object call : calls) {
            nested |= call == volume;
        }
        calls.push(volume);
        if (target < 0 || nested || (commitsOnly && IN_COMMIT.get()[0] == 0)) {
            return;
        }
        File file = volume instanceof Volume v ? v.getFile() : null;
        if (file == null) {
            return; // MapDB's in-memory header and buffers
        }
        if (!commitsOnly && file.getName().matches(".*\\.wal\\.\\d+")) {
            return; // creating a catalog: its log writes are the same as those of a commit
        }
        synchronized (WriteHalter.class) {
            count++;
            if (count == target) {
                System.err.println("[halter] halting before write " + count + ": " + method + " on " + file.getName());
                System.err.flush();
                Runtime.getRuntime().halt(HALT_STATUS);
            }
            if (!commitsOnly && !file.getName().endsWith(CatalogFileCreation.CREATING)) {
                target = -1; // the first write to the catalog file once it is created: creation is over
            }
        }
    }

    /** Called by the advice after each volume write. */
    public static void exit() {
        CALLS.get().pop();
    }

    public static void commitStarts() {
        IN_COMMIT.get()[0]++;
    }

    public static void commitEnds() {
        IN_COMMIT.get()[0]--;
    }

    /** The check Byte Buddy inlines around every volume write. */
    static final class Step {
        @Advice.OnMethodEnter
        static void enter(@Advice.This Object volume, @Advice.Origin("#t.#m") String method) {
            WriteHalter.enter(volume, method);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit() {
            WriteHalter.exit();
        }
    }

    /** Marks the thread as inside MapDB's commit. */
    static final class Commit {
        @Advice.OnMethodEnter
        static void enter() {
            WriteHalter.commitStarts();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit() {
            WriteHalter.commitEnds();
        }
    }
}
