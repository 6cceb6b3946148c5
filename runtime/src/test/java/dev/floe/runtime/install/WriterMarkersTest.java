package dev.floe.runtime.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.rebuild.CompactReport;
import dev.floe.runtime.rebuild.CompactionProbe;
import dev.floe.runtime.rebuild.CompactionStep;
import dev.floe.runtime.rebuild.Compactor;
import dev.floe.runtime.testing.CatalogFixture;
import dev.floe.runtime.testing.TestTables;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/**
 * A rebuild keeps what exactly-once writers record in snapshot summaries, so each finds its own
 * progress again by walking the ancestry from the head of main, the way each writer does it; and
 * the rebuilt snapshot's totals are those of its files. Most tests keep no history, as when the
 * writers' snapshots fell out of {@code floe.history.keep}: that is when markers are made.
 */
class WriterMarkersTest extends CatalogFixture {
    RebuildSettings settings = RebuildSettings.defaults().with(s -> {
        s.reclaimGrace = Duration.ZERO;
        s.historyKeep = Duration.ZERO;
    });

    @Test
    void eachKeyFamilyFindsItsProgressAfterARebuild() {
        appendForEveryKeyFamily(catalog.createTable(EVENTS, TestTables.SIMPLE));

        new Compactor(settings).compactTable(catalog, EVENTS, Prune.NONE);

        Table rebuilt = catalog.loadTableUncached(EVENTS);
        assertThat(rebuilt.snapshots()).hasSize(1);
        assertEveryKeyFamilyFindsItsProgress(rebuilt);
        // the newest commit's other keys, which no walk looks for, ride on the rebuilt snapshot
        assertThat(rebuilt.currentSnapshot().summary())
                .containsEntry("kafka.connect.commit-id", "c-2")
                .containsEntry("kafka.connect.vtts", "2000");
    }

    @Test
    void withHistoryKeptEachKeyFamilyFindsItsProgressInItsOwnSnapshotsAndNoMarkerIsMade() {
        appendForEveryKeyFamily(catalog.createTable(EVENTS, TestTables.SIMPLE));

        new Compactor(RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO))
                .compactTable(catalog, EVENTS, Prune.NONE);

        Table rebuilt = catalog.loadTableUncached(EVENTS);
        TestTables.rebuiltSnapshot(rebuilt);
        assertThat(rebuilt.snapshots()).hasSize(11);
        assertThat(rebuilt.snapshots()).noneMatch(s -> s.summary().containsKey(RebuiltSnapshotCommit.WRITER_MARKER));
        assertEveryKeyFamilyFindsItsProgress(rebuilt);
    }

    /** Ten appends, one row each: a Flink job's six checkpoints, two Kafka Connect groups, a Spark query's two epochs. */
    private static void appendForEveryKeyFamily(Table table) {
        for (int checkpoint = 1; checkpoint <= 6; checkpoint++) {
            append(
                    table,
                    checkpoint,
                    Map.of(
                            "flink.job-id", "job-a",
                            "flink.operator-id", "op-1",
                            "flink.max-committed-checkpoint-id", Integer.toString(checkpoint)));
        }
        append(
                table,
                7,
                Map.of(
                        "kafka.connect.offsets.control.group-1", "{\"0\":17}",
                        "kafka.connect.commit-id", "c-1",
                        "kafka.connect.vtts", "1000"));
        append(
                table,
                8,
                Map.of(
                        "kafka.connect.offsets.control.group-2", "{\"0\":5}",
                        "kafka.connect.commit-id", "c-2",
                        "kafka.connect.vtts", "2000"));
        append(table, 9, Map.of("spark.sql.streaming.queryId", "q-1", "spark.sql.streaming.epochId", "41"));
        append(table, 10, Map.of("spark.sql.streaming.queryId", "q-1", "spark.sql.streaming.epochId", "42"));
    }

    private static void assertEveryKeyFamilyFindsItsProgress(Table rebuilt) {
        assertThat(flinkCheckpoint(rebuilt, "job-a", "op-1")).isEqualTo(6);
        assertThat(kafkaConnectOffsets(rebuilt, "control", "group-1")).isEqualTo("{\"0\":17}");
        assertThat(kafkaConnectOffsets(rebuilt, "control", "group-2")).isEqualTo("{\"0\":5}");
        assertThat(sparkEpoch(rebuilt, "q-1")).isEqualTo(42);
        assertThat(TestTables.read(rebuilt)).hasSize(10);
    }

    @Test
    void carriedAppendsMarkersWinOverOlderOnes() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int checkpoint = 1; checkpoint <= 3; checkpoint++) {
            append(table, checkpoint, flink("job-a", checkpoint));
        }
        Table host = catalog.loadTableUncached(EVENTS);
        CompactionProbe commitsDuringTheRebuild = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                append(host, 4, flink("job-a", 4)); // carried before the gate
            }
            if (step == CompactionStep.MANIFEST_WRITTEN) {
                append(host, 5, flink("job-a", 5)); // carried under the gate
            }
        };

        CompactReport report = new Compactor(
                        settings, new WriterGate(), new HandleRegistry(0), commitsDuringTheRebuild, Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.carriedFiles()).isEqualTo(2);
        Table rebuilt = catalog.loadTableUncached(EVENTS);
        assertThat(rebuilt.snapshots()).hasSize(1);
        assertThat(flinkCheckpoint(rebuilt, "job-a", "op-1")).isEqualTo(5);
        assertThat(TestTables.read(rebuilt)).hasSize(5);
    }

    @Test
    void twoFlinkJobsEachFindTheirOwnCheckpointThroughMarkerSnapshots() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(table, 1, flink("job-a", 11));
        append(table, 2, flink("job-b", 21));
        append(table, 3, flink("job-a", 12));
        append(table, 4, flink("job-b", 22));
        append(table, 5, flink("job-c", 31));
        append(table, 6, flink("job-b", 23));

        new Compactor(settings).compactTable(catalog, EVENTS, Prune.NONE);

        Table rebuilt = catalog.loadTableUncached(EVENTS);
        // the newest writer on the rebuilt snapshot, each older one on an empty marker below it
        assertThat(rebuilt.snapshots()).hasSize(3);
        assertThat(rebuilt.currentSnapshot().summary()).containsEntry("flink.job-id", "job-b");
        assertThat(flinkCheckpoint(rebuilt, "job-a", "op-1")).isEqualTo(12);
        assertThat(flinkCheckpoint(rebuilt, "job-b", "op-1")).isEqualTo(23);
        assertThat(flinkCheckpoint(rebuilt, "job-c", "op-1")).isEqualTo(31);
        assertThat(TestTables.read(rebuilt)).hasSize(6);
        assertTotalsAreTrue(rebuilt);

        // and rebuilding again does not pile up markers: still one per writer
        TestTables.append(rebuilt, TestTables.simpleRows(100, 2));
        new Compactor(settings).compactTable(catalog, EVENTS, Prune.NONE);
        Table again = catalog.loadTableUncached(EVENTS);
        assertThat(again.snapshots()).hasSize(3);
        assertThat(flinkCheckpoint(again, "job-a", "op-1")).isEqualTo(12);
        assertThat(flinkCheckpoint(again, "job-b", "op-1")).isEqualTo(23);
        assertThat(flinkCheckpoint(again, "job-c", "op-1")).isEqualTo(31);
        assertThat(TestTables.read(again)).hasSize(8);
    }

    @Test
    void writersBeyondTheLimitAreDroppedOldestFirst() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(table, 1, flink("job-a", 1));
        append(table, 2, flink("job-b", 2));
        append(table, 3, flink("job-c", 3));

        new Compactor(settings.with(s -> s.writerMarkers = 2)).compactTable(catalog, EVENTS, Prune.NONE);

        Table rebuilt = catalog.loadTableUncached(EVENTS);
        assertThat(rebuilt.snapshots()).hasSize(2);
        assertThat(flinkCheckpoint(rebuilt, "job-c", "op-1")).isEqualTo(3);
        assertThat(flinkCheckpoint(rebuilt, "job-b", "op-1")).isEqualTo(2);
        assertThat(flinkCheckpoint(rebuilt, "job-a", "op-1")).isEqualTo(-1);
    }

    @Test
    void icebergsOwnKeysAreNotCarried() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(table, 1, Map.of("wap.id", "w-1", "app.custom", "kept"));
        append(table, 2, Map.of());

        new Compactor(settings).compactTable(catalog, EVENTS, Prune.NONE);

        Map<String, String> summary =
                catalog.loadTableUncached(EVENTS).currentSnapshot().summary();
        assertThat(summary).containsEntry("app.custom", "kept").doesNotContainKey("wap.id");
        assertThat(summary).containsEntry("added-data-files", "1").containsEntry("total-data-files", "1");
    }

    @Test
    void rebuiltTotalsAreThoseOfItsFilesAndLaterAppendsAddOntoThem() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int i = 0; i < 8; i++) {
            TestTables.append(table, TestTables.simpleRows(i * 10L, 10));
        }
        long bytesBefore = filesBytes(table);
        Table host = catalog.loadTableUncached(EVENTS);
        CompactionProbe lateAppends = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                TestTables.append(host, TestTables.simpleRows(500, 3));
            }
            if (step == CompactionStep.MANIFEST_WRITTEN) {
                TestTables.append(host, TestTables.simpleRows(600, 4));
            }
        };

        CompactReport report = new Compactor(
                        settings, new WriterGate(), new HandleRegistry(0), lateAppends, Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.bytesBefore()).isEqualTo(bytesBefore);
        Table rebuilt = catalog.loadTableUncached(EVENTS);
        assertThat(rebuilt.snapshots()).hasSize(1);
        assertTotalsAreTrue(rebuilt);
        assertThat(rebuilt.currentSnapshot().summary()).containsEntry("total-records", "87");

        TestTables.append(rebuilt, TestTables.simpleRows(700, 5));
        TestTables.append(rebuilt, TestTables.simpleRows(800, 5));
        assertTotalsAreTrue(catalog.loadTableUncached(EVENTS));
        assertThat(catalog.loadTableUncached(EVENTS).currentSnapshot().summary())
                .containsEntry("total-records", "97");

        // the next rebuild reads its "bytes before" from those totals
        long bytesNow = filesBytes(catalog.loadTableUncached(EVENTS));
        CompactReport next = new Compactor(settings).compactTable(catalog, EVENTS, Prune.NONE);
        assertThat(next.bytesBefore()).isEqualTo(bytesNow);
        assertTotalsAreTrue(catalog.loadTableUncached(EVENTS));
    }

    @Test
    void formatOneTablesHaveTrueTotalsToo() {
        Table table = catalog.buildTable(EVENTS, TestTables.SIMPLE)
                .withProperty(TableProperties.FORMAT_VERSION, "1")
                .create();
        for (int i = 0; i < 4; i++) {
            TestTables.append(table, TestTables.simpleRows(i * 10L, 10));
        }

        new Compactor(settings).compactTable(catalog, EVENTS, Prune.NONE);

        assertTotalsAreTrue(catalog.loadTableUncached(EVENTS));
    }

    private static void assertTotalsAreTrue(Table table) {
        Map<String, String> summary = table.currentSnapshot().summary();
        long rows = 0;
        long files = 0;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                rows += task.file().recordCount();
                files += 1;
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(summary).containsEntry("total-files-size", Long.toString(filesBytes(table)));
        assertThat(summary).containsEntry("total-records", Long.toString(rows));
        assertThat(summary).containsEntry("total-data-files", Long.toString(files));
        assertThat(summary).containsEntry("total-delete-files", "0");
    }

    private static long filesBytes(Table table) {
        table.refresh();
        long bytes = 0;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                bytes += task.file().fileSizeInBytes();
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes;
    }

    private static Map<String, String> flink(String job, long checkpoint) {
        return Map.of(
                "flink.job-id",
                job,
                "flink.operator-id",
                "op-1",
                "flink.max-committed-checkpoint-id",
                Long.toString(checkpoint));
    }

    /** One append of one row, with {@code summary} set on its snapshot, as a writer commits it. */
    private static void append(Table table, long id, Map<String, String> summary) {
        DataFile file = TestTables.writeFile(table, List.of(TestTables.simpleRow(id)));
        AppendFiles append = table.newFastAppend().appendFile(file);
        summary.forEach(append::set);
        append.commit();
    }

    // The look-ups below walk the ancestry from the head of main as each writer does.

    /** As Flink's {@code SinkUtil.getMaxCommittedCheckpointId}; -1 when none is found. */
    private static long flinkCheckpoint(Table table, String job, String operator) {
        for (Snapshot s = table.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            Map<String, String> summary = s.summary();
            String operatorId = summary.get("flink.operator-id");
            if (job.equals(summary.get("flink.job-id")) && (operatorId == null || operatorId.equals(operator))) {
                String value = summary.get("flink.max-committed-checkpoint-id");
                if (value != null) {
                    return Long.parseLong(value);
                }
            }
        }
        return -1;
    }

    /** As Iceberg Kafka Connect's {@code Coordinator}: the newest offsets of this group. */
    private static String kafkaConnectOffsets(Table table, String controlTopic, String group) {
        String key = "kafka.connect.offsets." + controlTopic + "." + group;
        for (Snapshot s = table.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            String value = s.summary().get(key);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /** As Spark's streaming write: the last epoch this query committed; -1 when none. */
    private static long sparkEpoch(Table table, String queryId) {
        for (Snapshot s = table.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (queryId.equals(s.summary().get("spark.sql.streaming.queryId"))) {
                return Long.parseLong(s.summary().get("spark.sql.streaming.epochId"));
            }
        }
        return -1;
    }
}
