package dev.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process halted before any single file write of a catalog commit, or of a catalog's creation,
 * leaves a catalog that opens with every commit that returned, and the one in flight wholly there or
 * wholly absent. Each case is a real child JVM ({@link HaltInCommit}) halted by {@link WriteHalter}
 * before its k-th write, for every k until the step completes: each write of MapDB's copy of the
 * commit (its log of the commit is already written, in memory), before floe journals it, and each
 * of floe's writes of the journaled commit into the file.
 */
class TornCommitTest {
    private static final Pattern HALTED = Pattern.compile("halting before write (\\d+): (\\S+) on (\\S+)");
    private static final List<String> JVM = List.of("-Djdk.attach.allowAttachSelf=true");
    private static final int PARALLEL = 2;

    @TempDir
    Path root;

    @Test
    @Timeout(600)
    void aCommitHaltedBeforeAnyOfItsWritesIsWhollyThereOrWhollyAbsent() throws Exception {
        AtomicInteger inFlightThere = new AtomicInteger();
        List<String> halts = sweep("commit", (file, k, run) -> {
            assertThat(run.acknowledged)
                    .as("commits 0-2 returned before the halt" + run.output)
                    .contains(0, 1, 2);
            CatalogStore store = CatalogStore.acquire(file);
            try {
                String pointer = store.snapshot().pointers.get("db.t");
                assertThat(pointer)
                        .as("halted before write %d%s", k, run.output)
                        .isIn("loc-2", "loc-3");
                int last = pointer.equals("loc-3") ? 3 : 2;
                if (run.acknowledged.contains(3)) {
                    assertThat(last)
                            .as("commit 3 returned, so it is there" + run.output)
                            .isEqualTo(3);
                } else if (last == 3) {
                    inFlightThere.incrementAndGet();
                }
                assertCommitted(store, last, "halted before write " + k + run.output);
                HaltInCommit.commit(store, last + 1);
            } finally {
                store.release();
            }
            assertReopens(file, "after the commit that followed a halt before write " + k);
        });
        System.out.println("commit: halted before each of " + halts.size() + " writes; the commit in"
                + " flight was there after " + inFlightThere + " of them, wholly absent after the others");
        assertThat(halts)
                .as("halts landed in MapDB's copy of the commit and in floe's writes to the file")
                .anyMatch(h -> h.startsWith("JournaledVolume.put") && h.endsWith(" catalog.db"))
                .anyMatch(h -> h.equals("JournaledVolume.sync catalog.db"))
                .anyMatch(h -> h.equals("RandomAccessFileVol.putData catalog.db"));
        assertThat(inFlightThere.get())
                .as("halts after the commit was journaled")
                .isPositive();
    }

    @Test
    @Timeout(600)
    void aCatalogWhoseCreationIsHaltedBeforeAnyWriteOpensAfterwards() throws Exception {
        List<String> halts = sweep("create", (file, k, run) -> {
            CatalogStore store = CatalogStore.acquire(file);
            try {
                // halted in the creation, nothing committed yet; or it completed with commit 0
                int last = run.acknowledged.contains(0) ? 0 : -1;
                assertCommitted(store, last, "halted before write " + k + run.output);
                HaltInCommit.commit(store, last + 1);
            } finally {
                store.release();
            }
            assertReopens(file, "after a halt before write " + k + " of its creation");
            try (var names = Files.list(file.getParent())) {
                assertThat(names.map(p -> p.getFileName().toString()))
                        .as("nothing of an interrupted creation is left")
                        .containsExactlyInAnyOrder("catalog.db", "catalog.db.lock");
            }
        });
        System.out.println("create: halted before each of " + halts.size() + " writes");
        assertThat(halts)
                .anyMatch(h -> h.equals("JournaledVolume.sync catalog.db.creating"))
                .anyMatch(h -> h.equals("RandomAccessFileVol.putData catalog.db.creating"))
                .anyMatch(h -> h.endsWith(" catalog.db"));
    }

    /** Checks one halted (or completed) child run on its catalog file. */
    private interface Check {
        void check(Path file, int k, Run run) throws Exception;
    }

    /**
     * Runs the child halted before write k = 1, 2, ..., two at a time, checking each, until one
     * completes its step; the halts, in order of k.
     */
    private List<String> sweep(String step, Check check) throws Exception {
        List<String> halts = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(PARALLEL);
        try {
            for (int first = 1; ; first += PARALLEL) {
                List<Future<Run>> runs = new ArrayList<>();
                for (int k = first; k < first + PARALLEL; k++) {
                    int at = k;
                    runs.add(pool.submit(() -> {
                        Path file = root.resolve(step + "-" + at).resolve("catalog.db");
                        Run run = run(file, step, at);
                        check.check(file, at, run);
                        return run;
                    }));
                }
                boolean completed = false;
                for (Future<Run> future : runs) {
                    Run run;
                    try {
                        run = future.get();
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof Error error) {
                            throw error;
                        }
                        throw e;
                    }
                    if (run.completed) {
                        completed = true;
                    } else if (!completed) {
                        halts.add(run.halt);
                    }
                }
                if (completed) {
                    return halts;
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void assertReopens(Path file, String when) {
        CatalogStore store = CatalogStore.acquire(file);
        try {
            String pointer = store.snapshot().pointers.get("db.t");
            assertThat(pointer).as(when).isNotNull();
            assertCommitted(store, Integer.parseInt(pointer.substring("loc-".length())), when);
        } finally {
            store.release();
        }
    }

    /** The catalog holds exactly commits 0 to {@code last} of {@link HaltInCommit#commit}. */
    static void assertCommitted(CatalogStore store, int last, String why) {
        Map<Long, String> log = new TreeMap<>();
        Map<String, String> jobs = new TreeMap<>();
        Map<String, String> pointers = new TreeMap<>();
        Map<String, Map<String, String>> namespaces = new TreeMap<>();
        for (int n = 0; n <= last; n++) {
            log.put((long) n, "loc-" + n);
            pointers.put("db.t", "loc-" + n);
            jobs.put("job-" + n, "due-" + n);
            if (n >= 3) {
                jobs.remove("job-" + (n - 3));
                pointers.put("db.u", "u-" + n);
                namespaces.put("ns" + n, Map.of("owner", "commit-" + n));
            }
        }
        assertThat(store.snapshot().pointers).as("pointers, " + why).isEqualTo(pointers);
        assertThat(store.snapshot().namespaces).as("namespaces, " + why).isEqualTo(namespaces);
        assertThat(store.commitLog("db.t")).as("commit log, " + why).isEqualTo(log);
        assertThat(store.section("jobs")).as("jobs, " + why).isEqualTo(jobs);
    }

    private Run run(Path file, String step, int k) throws Exception {
        Files.createDirectories(file.getParent());
        try (ChildJvm child =
                ChildJvm.start(root.resolve("logs"), JVM, HaltInCommit.class, file.toString(), step, "" + k)) {
            int exit = child.awaitExit(Duration.ofSeconds(60));
            List<Integer> acknowledged = new ArrayList<>();
            boolean completed = false;
            for (String line : child.lines()) {
                if (line.startsWith("committed ")) {
                    acknowledged.add(Integer.parseInt(line.substring("committed ".length())));
                }
                completed |= line.startsWith("writes ");
            }
            Matcher halted = HALTED.matcher(child.errorOutput());
            String output = child.describe();
            if (completed) {
                assertThat(exit).as("exit" + output).isZero();
                return new Run(acknowledged, true, null, output);
            }
            assertThat(exit).as("exit" + output).isEqualTo(WriteHalter.HALT_STATUS);
            assertThat(halted.find()).as("halt reported" + output).isTrue();
            assertThat(Integer.parseInt(halted.group(1))).isEqualTo(k);
            String method = halted.group(2).replaceFirst("^.*\\.(\\w+\\.\\w+)$", "$1");
            return new Run(acknowledged, false, method + " " + halted.group(3), output);
        }
    }

    private record Run(List<Integer> acknowledged, boolean completed, String halt, String output) {}
}
