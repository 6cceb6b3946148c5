package dev.floe.engines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 12: Apache Flink 1.20 with Iceberg's own exactly-once sink ({@code FlinkSink.forRowData})
 * through {@code MapDbCatalog}, in a local MiniCluster in a child JVM with the agent attached, and a
 * task failure injected right after a rebuild (the head of main is the rebuilt snapshot, no Flink
 * commit since). Flink's committer finds its last committed checkpoint by walking the snapshot
 * summaries back from the head; the job must recover from each failure and write every row exactly
 * once. With history kept (floe's default) it finds them in its own snapshots below the rebuilt
 * one; with {@code floe.history.keep=0s} in the summary of the rebuilt snapshot that replaced them.
 */
class FlinkFailoverIT {
    /** A rebuild every ~20 commits: with a commit per 300 ms checkpoint, one every ~6 s. */
    static final int TRIGGER = 20;
    /** Ids 0..ROWS-1 at RATE rows a second: ~35 s, ~115 checkpoints, each one commit. */
    static final int ROWS = 2_800;

    static final int RATE = 80;
    static final int FAILURES = 2;
    /**
     * Where the run without the agent fails: early enough that a loaded machine, whose checkpoints
     * take longer and so carry more rows each, still commits that many times (35 commits were seen).
     */
    static final int FIRST_COMMIT_FAILURE = 10;

    static final int SECOND_COMMIT_FAILURE = 20;
    /** The child's bound; the runs take about a minute. */
    static final int MINUTES = 5;
    /**
     * One writer. Iceberg 1.10.1's FlinkSink (v1) loses rows of a bounded job whose parallel writers
     * finish in different checkpoints: each writer's end-of-input files go under one key
     * ({@code Long.MAX_VALUE}) that the committer's next snapshot overwrites instead of merging; a
     * failover makes the writers finish apart. Seen here without the agent (the tail of one split
     * missing in 2 of 5 runs at parallelism 2), so the harness keeps to one writer.
     */
    static final String PARALLELISM = "1";

    @TempDir
    Path dir;

    private Path log(TestInfo test) throws Exception {
        return log(test, "");
    }

    private Path log(TestInfo test, String suffix) throws Exception {
        Path logs = Path.of("target", "it-logs").toAbsolutePath();
        Files.createDirectories(logs);
        return logs.resolve(test.getTestMethod().orElseThrow().getName() + suffix + ".log");
    }

    @ParameterizedTest(name = "floe.history.keep={0}")
    @ValueSource(strings = {"1h", "0s"})
    void failoverRightAfterARebuildRecoversAndWritesEveryRowExactlyOnce(String keep, TestInfo test) throws Exception {
        Path floe = dir.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.tables=db.events\nfloe.trigger.snapshots=" + TRIGGER
                        + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1s\nfloe.history.keep=" + keep + "\n");
        List<String> jvm = new ArrayList<>(ChildJvm.FLINK_JAVA17_FLAGS);
        jvm.add("-Xmx1g");
        jvm.add(ChildJvm.agentArg(floe));

        ChildJvm.Run run = ChildJvm.run(
                MINUTES,
                log(test, "-" + keep),
                jvm,
                FlinkIngest.class.getName(),
                dir.toString(),
                Integer.toString(ROWS),
                Integer.toString(RATE),
                PARALLELISM,
                "after-rebuild:" + FAILURES + "@" + TRIGGER);

        Map<String, String> result = run.result();
        assertThat(run.lines("[floe] INFO")).as(run::describe).isNotEmpty();
        assertThat(result.get("sharedStatics")).as(run::describe).isEqualTo("true");
        // the issue's failure: the committer re-commits a checkpoint from a manifest it already deleted
        // (Iceberg's NotFoundException; Flink's RPC shutdown hook may print a ClassNotFoundException at exit)
        assertThat(run.lines("iceberg.exceptions.NotFoundException"))
                .as(run::describe)
                .isEmpty();
        assertThat(result.get("status")).as(run::describe).isEqualTo("FINISHED");
        assertThat(run.resultLong("injectedAfterRebuild")).as(run::describe).isGreaterThanOrEqualTo(FAILURES);
        assertThat(run.lines("floe: rebuilt db.events")).as(run::describe).hasSizeGreaterThanOrEqualTo(3);
        // Flink opens and closes catalogs as it pleases (the sink builder, each committer): never a floe error
        assertThat(run.lines("ERROR").stream().filter(l -> l.contains("floe")).toList())
                .as(run::describe)
                .isEmpty();
        assertThat(run.exitCode()).as(run::describe).isZero();
        assertEveryRowExactlyOnce(run);
        if (keep.equals("0s")) {
            assertTheRebuiltSnapshotCarriesFlinksProgress(run);
        } else {
            assertEveryRebuiltSnapshotIsOnTopOfTheHistoryItKept(run);
        }
    }

    /**
     * With history kept, read from the table the child left: every rebuilt snapshot in it is a
     * {@code replace} whose parent is still there, no marker snapshot was made, and the walk Flink's
     * committer makes from the head finds the last checkpoint in the job's own snapshots.
     */
    private void assertEveryRebuiltSnapshotIsOnTopOfTheHistoryItKept(ChildJvm.Run run) throws Exception {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("check", FlinkIngest.catalogProperties(dir));
        try (catalog) {
            Table table = catalog.loadTable(FlinkIngest.EVENTS);
            List<Snapshot> rebuilt = new ArrayList<>();
            table.snapshots().forEach(s -> {
                if (s.summary().containsKey(FlinkIngest.REBUILD_MARKER)) {
                    rebuilt.add(s);
                }
            });
            assertThat(rebuilt).as(run::describe).hasSizeGreaterThanOrEqualTo(3).allSatisfy(s -> {
                assertThat(s.operation()).isEqualTo("replace");
                assertThat(table.snapshot(s.parentId())).isNotNull();
            });
            assertThat(table.snapshots())
                    .as(run::describe)
                    .noneMatch(s -> s.summary().containsKey("floe.writer-marker"));
            long newest = -1;
            for (Snapshot s : table.snapshots()) {
                String checkpoint = s.summary().get("flink.max-committed-checkpoint-id");
                newest = checkpoint == null ? newest : Math.max(newest, Long.parseLong(checkpoint));
            }
            Snapshot found = table.currentSnapshot();
            while (found != null && !found.summary().containsKey("flink.max-committed-checkpoint-id")) {
                found = found.parentId() == null ? null : table.snapshot(found.parentId());
            }
            assertThat(found).as(run::describe).isNotNull();
            assertThat(Long.parseLong(found.summary().get("flink.max-committed-checkpoint-id")))
                    .as("the walk from the head finds the newest checkpoint")
                    .isEqualTo(newest)
                    .isPositive();
            assertThat(table.currentSnapshot().summary())
                    .as(run::describe)
                    .containsEntry("total-records", Integer.toString(ROWS));
        }
    }

    /**
     * The mechanism, read from the table the child left: the oldest snapshot is the last rebuild's
     * (no parent), and it carries the committer's markers, which is what let each restore find its
     * checkpoint; the head's totals count every row (the rebuilt snapshot's totals are true, and the
     * appends since add onto them).
     */
    private void assertTheRebuiltSnapshotCarriesFlinksProgress(ChildJvm.Run run) throws Exception {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("check", FlinkIngest.catalogProperties(dir));
        try (catalog) {
            Table table = catalog.loadTable(FlinkIngest.EVENTS);
            List<Snapshot> rebuilt = new ArrayList<>();
            table.snapshots().forEach(s -> {
                if (s.parentId() == null && s.summary().containsKey(FlinkIngest.REBUILD_MARKER)) {
                    rebuilt.add(s);
                }
            });
            assertThat(rebuilt)
                    .as(run::describe)
                    .singleElement()
                    .satisfies(s -> assertThat(s.summary())
                            .containsKeys("flink.job-id", "flink.operator-id", "flink.max-committed-checkpoint-id"));
            assertThat(table.currentSnapshot().summary())
                    .as(run::describe)
                    .containsEntry("total-records", Integer.toString(ROWS));
        }
    }

    /** The harness itself, without the agent: the same failures, after ordinary commits, lose and double nothing. */
    @Test
    void withoutTheAgentTheSameFailoversAreExactlyOnce(TestInfo test) throws Exception {
        int rows = ROWS / 2;
        List<String> jvm = new ArrayList<>(ChildJvm.FLINK_JAVA17_FLAGS);
        jvm.add("-Xmx1g");

        ChildJvm.Run run = ChildJvm.run(
                MINUTES,
                log(test),
                jvm,
                FlinkIngest.class.getName(),
                dir.toString(),
                Integer.toString(rows),
                Integer.toString(RATE),
                PARALLELISM,
                "after-commit:" + FIRST_COMMIT_FAILURE + "," + SECOND_COMMIT_FAILURE);

        Map<String, String> result = run.result();
        assertThat(result.get("sharedStatics")).as(run::describe).isEqualTo("true");
        assertThat(result.get("status")).as(run::describe).isEqualTo("FINISHED");
        assertThat(run.resultLong("injected")).as(run::describe).isEqualTo(2);
        assertThat(run.output()).as(run::describe).doesNotContain("floe:", "[floe]");
        assertThat(run.exitCode()).as(run::describe).isZero();
        assertThat(readBack())
                .as(run::describe)
                .hasSize(rows)
                .allSatisfy((id, payload) -> assertThat(payload).isEqualTo(FlinkIngest.payload(id)));
        assertThat(readBack().keySet()).containsExactlyInAnyOrderElementsOf(range(rows));
    }

    private void assertEveryRowExactlyOnce(ChildJvm.Run run) throws Exception {
        Map<Long, String> rows = readBack();
        assertThat(rows).as(run::describe).hasSize(ROWS);
        assertThat(rows.keySet()).as(run::describe).containsExactlyInAnyOrderElementsOf(range(ROWS));
        assertThat(rows)
                .as(run::describe)
                .allSatisfy((id, payload) -> assertThat(payload).isEqualTo(FlinkIngest.payload(id)));
    }

    private static List<Long> range(int n) {
        List<Long> ids = new ArrayList<>(n);
        for (long i = 0; i < n; i++) {
            ids.add(i);
        }
        return ids;
    }

    /**
     * Every row of {@code db.events}, id to payload, read through a catalog this JVM opens on the
     * file after the child exited; a doubled id fails here.
     */
    private Map<Long, String> readBack() throws Exception {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("check", FlinkIngest.catalogProperties(dir));
        try (catalog) {
            Table table = catalog.loadTable(FlinkIngest.EVENTS);
            Map<Long, String> rows = new HashMap<>();
            List<Long> doubled = new ArrayList<>();
            try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
                for (Record r : records) {
                    Long id = (Long) r.getField("id");
                    if (rows.put(id, (String) r.getField("payload")) != null) {
                        doubled.add(id);
                    }
                }
            }
            assertThat(doubled).as("ids read more than once").isEmpty();
            return rows;
        }
    }
}
