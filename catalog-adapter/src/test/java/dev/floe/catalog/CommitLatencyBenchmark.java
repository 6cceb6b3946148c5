package dev.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

/**
 * Commit latency of the catalog file before (MapDB as {@code DBMaker} opens it, copying each commit
 * into the file and syncing it) and after (through floe's journal), in one run, alternating blocks
 * of commits so both see the same machine. Each commit is what a table commit makes: a pointer
 * repointed and a commit-log entry appended. Not part of the build; run with {@code mvn -B -ntp -pl
 * catalog-adapter test -Dtest=CommitLatencyBenchmark -Dbenchmark=true} and read {@code
 * target/surefire-reports/dev.floe.catalog.CommitLatencyBenchmark-output.txt}.
 */
@EnabledIfSystemProperty(named = "benchmark", matches = "true")
class CommitLatencyBenchmark {
    private static final int ROUNDS = Integer.getInteger("rounds", 12);
    private static final int COMMITS = Integer.getInteger("commits", 200);

    @TempDir
    Path root;

    @Test
    void commitLatencyBeforeAndAfterTheJournal() {
        Side before = new Side(
                "before",
                file -> DBMaker.fileDB(file.toFile())
                        .transactionEnable()
                        .fileLockDisable()
                        .make(),
                root.resolve("before.db"));
        Side after = new Side("after", JournaledMapDb::open, root.resolve("after.db"));
        try {
            for (int round = 0; round < ROUNDS; round++) {
                // alternate which side goes first, so neither always follows the other's fsyncs
                Side first = round % 2 == 0 ? before : after;
                Side second = first == before ? after : before;
                first.commits(round);
                second.commits(round);
            }
        } finally {
            before.db.close();
            after.db.close();
        }
        double ratio = after.median() / before.median();
        System.out.printf(
                "commit latency, %d commits each: before median %.3f ms (p90 %.3f), after median %.3f ms"
                        + " (p90 %.3f); after/before %.2f (p90 %.2f)%n",
                ROUNDS * COMMITS,
                before.median(),
                before.percentile(0.9),
                after.median(),
                after.percentile(0.9),
                ratio,
                after.percentile(0.9) / before.percentile(0.9));
        assertThat(ratio).isPositive();
    }

    private static final class Side {
        final String name;
        final DB db;
        final BTreeMap<String, String> pointers;
        final BTreeMap<String, String> log;
        final long[] nanos = new long[ROUNDS * COMMITS];
        int count;

        Side(String name, Function<Path, DB> open, Path file) {
            this.name = name;
            this.db = open.apply(file);
            this.pointers = db.treeMap("floe.tables", Serializer.STRING, Serializer.STRING)
                    .createOrOpen();
            this.log = db.treeMap("floe.commit-log", Serializer.STRING, Serializer.STRING)
                    .createOrOpen();
            db.commit();
        }

        void commits(int round) {
            for (int i = 0; i < COMMITS; i++) {
                int n = round * COMMITS + i;
                String location = "/warehouse/db/events/metadata/" + String.format("%05d", n) + "-"
                        + Integer.toHexString(n * 0x9E3779B1) + ".metadata.json";
                long start = System.nanoTime();
                pointers.put("db" + CatalogKeys.LEVEL + "events", location);
                log.put(CatalogKeys.logEntry("db" + CatalogKeys.LEVEL + "events", n), location);
                db.commit();
                nanos[count++] = System.nanoTime() - start;
            }
        }

        double median() {
            return percentile(0.5);
        }

        double percentile(double p) {
            long[] sorted = Arrays.copyOf(nanos, count);
            Arrays.sort(sorted);
            return sorted[(int) Math.min(count - 1, Math.round(p * (count - 1)))] / 1e6;
        }
    }
}
