package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.samples.UpsertKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An upsert stream in a real JVM with the agent (issue 17): the sample upsert host, an ordinary
 * Iceberg program whose every commit is one row delta that adds the new version of 20 keys and
 * equality-deletes their earlier versions, 500 commits over 2,000 keys. floe must rebuild the
 * table while it streams (rebasing the row deltas that land during each rebuild), never give up on
 * it as busy, and keep its snapshots bounded; the table must hold exactly the latest version of
 * every key; and after the last rebuild it must hold only the delete files committed since the
 * snapshot that rebuild pinned.
 *
 * <p>A floe that restarts a rebuild on every row delta ends each rebuild busy: then the test stops
 * the host at once (its stop file) rather than let it stream 500 commits onto a table that is
 * never compacted, and reports every assertion that fails.
 */
class UpsertStreamIT {
    static final int TRIGGER = 80;
    static final int COMMITS = 500;
    static final int ROWS = 20;
    static final int KEYS = 2_000;
    static final TableIdentifier UPSERTS = TableIdentifier.of("db", "upserts");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "partition={0}, format {1}")
    @CsvSource({"none, 2", "day, 3"})
    void anUpsertStreamIsRebuiltWhileItStreamsAndHoldsTheLatestVersionOfEveryKey(String partition, int format)
            throws Exception {
        Path stop = dir.resolve("stop");
        Jvm.Run run;
        try (Child host = Child.java(
                "upsert host",
                dir.resolve("upsert.log"),
                dir,
                List.of(
                        Jvm.agentArg(floeProperties()),
                        "-Dingest.partition=" + partition,
                        "-Dupsert.format-version=" + format,
                        // the commits read manifests on their own thread: no 10 ms polls, a shorter test
                        "-Dupsert.scan-manifests=caller",
                        "-Dingest.stop-file=" + stop),
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Upsert",
                catalogProperties().toString(),
                UPSERTS.toString(),
                Integer.toString(COMMITS),
                Integer.toString(ROWS),
                Integer.toString(KEYS))) {
            String first =
                    host.awaitLine(line -> line.startsWith("RESULT ") || endsBusy(line), 1, Duration.ofMinutes(15));
            if (endsBusy(first)) {
                Files.createFile(stop); // floe gave up on the stream: no point streaming the rest
            }
            run = host.await(Duration.ofMinutes(15));
        }
        Map<String, String> result = run.result();
        int commits = Integer.parseInt(result.get("commits"));
        List<String> rebuilt = run.lines("floe: rebuilt " + UPSERTS + ":");
        String lastRebuild =
                run.lines("LAST-REBUILD ").stream().reduce((a, b) -> b).orElse("LAST-REBUILD (not printed)");

        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(run.exitCode())
                .as("exit code; output:\n%s", run.output())
                .isZero();
        softly.assertThat(result).as("the host's checks").containsEntry("wrong", "0");
        softly.assertThat(result).containsEntry("heldWrong", "0").doesNotContainKey("problem");
        softly.assertThat(run.lines("ERROR")).as("errors").isEmpty();
        softly.assertThat(run.output().lines().filter(UpsertStreamIT::endsBusy))
                .as("rebuilds that ended busy (floe gave up on the row deltas)")
                .isEmpty();
        softly.assertThat(commits)
                .as("commits made (the host is stopped when floe gives up)")
                .isEqualTo(COMMITS);
        softly.assertThat(rebuilt).as("rebuilds that succeeded").hasSizeGreaterThanOrEqualTo(3);
        // a rebuild runs in the background while the host commits back to back (about 25 a second):
        // the commits of one rebuild land past the trigger, and are rebased
        softly.assertThat(Long.parseLong(result.get("sinceRewrite")))
                .as("snapshots since the last rebuild at the end")
                .isLessThanOrEqualTo(3L * TRIGGER);
        softly.assertThat(result.get("deletesSincePin"))
                .as("the host's check of the deletes after the last rebuild: %s", lastRebuild)
                .isEqualTo("ok");
        softly.assertThat(deletesNotSinceThePin(run, lastRebuild))
                .as("delete files held after the last rebuild that were not committed since its pinned snapshot")
                .isEmpty();
        softly.assertThat(readBackAgainstTheSeed(commits))
                .as("read back after the host ended, against the keys the seed gives")
                .isEmpty();
        System.out.printf(
                "upsert stream (%s, format %d): %d commits, %d rebuilds, %d attempts started again, RESULT %s%n",
                partition,
                format,
                commits,
                rebuilt.size(),
                run.lines("floe: rebuild of " + UPSERTS + " starts again").size(),
                result);
        softly.assertAll();
    }

    /** A line floe logs when a rebuild ended busy: it gave up on the table for a while. */
    static boolean endsBusy(String line) {
        return line.contains("TableBusyException")
                || (line.contains("floe: Table ") && line.contains(" is busy: "))
                || line.contains(" time(s) in a row: left alone for ");
    }

    /**
     * The delete files of the host's DELETES line that break "only deletes committed since the last
     * rebuild's pinned snapshot": an equality delete of the host's commit at or before the pinned
     * one, a file floe wrote that is not a position delete or deletion vector, or any other file.
     */
    private static List<String> deletesNotSinceThePin(Jvm.Run run, String lastRebuild) {
        List<String> wrong = new ArrayList<>();
        Map<String, String> rebuild = pairs(lastRebuild);
        if (!rebuild.containsKey("pinnedCommit") || rebuild.get("pinnedCommit").equals("none")) {
            wrong.add("no rebuild of this run's commits: " + lastRebuild);
            return wrong;
        }
        long pinned = Long.parseLong(rebuild.get("pinnedCommit"));
        String deletes = run.lines("DELETES count=").stream()
                .reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no DELETES line:\n" + run.output()));
        String[] tokens = deletes.trim().split("\\s+");
        for (int i = 2; i < tokens.length; i++) {
            String[] token = tokens[i].split(":"); // kind:dataSequenceNumber:origin
            String kind = token[0];
            String origin = token[2];
            boolean since = origin.startsWith("c")
                    ? Long.parseLong(origin.substring(1)) > pinned
                    : origin.equals("floe") && (kind.equals("pos") || kind.equals("dv"));
            if (!since) {
                wrong.add(tokens[i] + " (pinned commit " + pinned + ")");
            }
        }
        assertThat(tokens.length - 2L).as(deletes).isEqualTo(Long.parseLong(tokens[1].substring("count=".length())));
        return wrong;
    }

    /**
     * Reads the table through a catalog opened after the host ended, and compares it with the latest
     * version of each key the host's seed gives after {@code commits} commits; returns what differs.
     */
    private List<String> readBackAgainstTheSeed(int commits) throws Exception {
        long[] expected = UpsertKeys.lastVersions(KEYS, ROWS, 1, commits);
        long[] read = new long[KEYS];
        List<String> wrong = new ArrayList<>();
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize(
                "check",
                Map.of(
                        CatalogProperties.WAREHOUSE_LOCATION,
                        dir.resolve("warehouse").toString()));
        try (catalog) {
            Table table = catalog.loadTable(UPSERTS);
            try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
                for (Record row : rows) {
                    int key = (int) (long) (Long) row.getField("id");
                    long version = (Long) row.getField("version");
                    if (read[key] != 0 || version != expected[key]) {
                        wrong.add("key " + key + " version " + version + " (expected " + expected[key]
                                + (read[key] != 0 ? ", already read version " + read[key] : "") + ")");
                    }
                    read[key] = version;
                }
            }
        }
        for (int key = 0; key < KEYS; key++) {
            if (expected[key] != 0 && read[key] == 0) {
                wrong.add("key " + key + " missing (expected version " + expected[key] + ")");
            }
        }
        return wrong.size() > 20 ? wrong.subList(0, 20) : wrong;
    }

    private static Map<String, String> pairs(String line) {
        Map<String, String> values = new java.util.LinkedHashMap<>();
        for (String word : line.split("\\s+")) {
            int eq = word.indexOf('=');
            if (eq > 0) {
                values.putIfAbsent(word.substring(0, eq), word.substring(eq + 1));
            }
        }
        return values;
    }

    private Path catalogProperties() throws Exception {
        Path file = dir.resolve("catalog.properties");
        Files.writeString(
                file, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + dir.resolve("warehouse") + "\n");
        return file;
    }

    private Path floeProperties() throws Exception {
        Path file = dir.resolve("floe.properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "floe.trigger.snapshots=" + TRIGGER,
                        "floe.trigger.min-interval=1s",
                        // the host's final read-back (slow with many equality deletes) may read a version a swap
                        // retires
                        "floe.reclaim.grace=5m",
                        ""));
        return file;
    }
}
