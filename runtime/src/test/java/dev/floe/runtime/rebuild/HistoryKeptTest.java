package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.guard.TableGrowth;
import dev.floe.runtime.seam.ReachableFiles;
import dev.floe.runtime.testing.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.IncrementalAppendScan;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * History kept across rebuilds ({@code floe.history.keep}): the rebuilt snapshot is a {@code
 * replace} on top of the host's snapshots, so incremental readers (Iceberg's own {@link
 * IncrementalAppendScan}, what Flink's and Spark's streaming sources plan with) read every appended
 * row exactly once across rebuilds, and every kept version answers time travel, by id and by
 * timestamp, with exactly the rows it had. In floe's catalog (a swap) and in place (JDBC on SQLite).
 */
class HistoryKeptTest {
    static final TableIdentifier EVENTS = HistorySide.EVENTS;
    static final int ROUNDS = 6;
    static final int COMMITS = 12;
    static final int ROWS = 10;

    @TempDir
    Path root;

    final List<AutoCloseable> opened = new ArrayList<>();
    final RebuildSettings keepHour = RebuildSettings.defaults().with(s -> {
        s.reclaimGrace = Duration.ZERO;
        s.historyKeep = Duration.ofHours(1);
    });

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    private HistorySide mapDb() {
        return HistorySide.mapDb(root, opened);
    }

    private HistorySide jdbc() {
        return HistorySide.jdbc(root, opened);
    }

    private JdbcCatalog jdbcInstance() {
        return TestTables.sqliteJdbc(root, "ingest");
    }

    @Test
    void swapKeepsHistoryForIncrementalReadersAndTimeTravel() {
        readersAndTimeTravelAcrossRebuilds(mapDb());
    }

    @Test
    void inPlaceKeepsHistoryForIncrementalReadersAndTimeTravel() {
        readersAndTimeTravelAcrossRebuilds(jdbc());
    }

    private void readersAndTimeTravelAcrossRebuilds(HistorySide side) {
        Table host = side.catalog().createTable(EVENTS, TestTables.SIMPLE);
        Versions versions = new Versions();
        Follower follower = new Follower(side); // reads after every commit
        Follower lagging = new Follower(side); // reads once per two rebuilds
        Long restartFrom = null; // a reader that starts afresh from its saved position every round
        List<Long> restarted = new ArrayList<>();
        long next = 0;
        for (int round = 0; round < ROUNDS; round++) {
            for (int c = 0; c < COMMITS; c++) {
                TestTables.append(host, TestTables.simpleRows(next, ROWS));
                next += ROWS;
                host.refresh();
                versions.record(host.currentSnapshot(), next);
                follower.poll();
            }
            CompactReport report = side.rebuild(keepHour, CompactionProbe.NONE);
            assertThat(report.dataFilesAfter()).isEqualTo(1);
            assertThat(report.historyKept()).isEqualTo((round + 1) * COMMITS + round);
            assertThat(report.summary()).contains(" snapshots -> 1 on top of " + report.historyKept() + " kept, ");
            host.refresh();
            Snapshot rebuilt = host.currentSnapshot();
            assertThat(rebuilt.operation()).isEqualTo(DataOperations.REPLACE);
            assertThat(rebuilt.parentId()).isEqualTo(versions.newest());
            assertThat(TableGrowth.snapshotsSinceRebuild(metadata(host))).isEqualTo(1);
            follower.poll();
            if (round % 2 == 1) {
                lagging.poll();
            }
            Follower fresh = new Follower(side, restartFrom);
            fresh.poll();
            restarted.addAll(fresh.ids);
            restartFrom = fresh.position;
            versions.assertEveryOneReadable(side.table());
        }
        lagging.poll();
        List<Long> all = new ArrayList<>();
        for (long id = 0; id < next; id++) {
            all.add(id);
        }
        assertThat(follower.ids).containsExactlyElementsOf(all);
        assertThat(lagging.ids).containsExactlyElementsOf(all);
        assertThat(restarted).containsExactlyElementsOf(all);
        Table table = side.table();
        assertThat(TestTables.fingerprints(table))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, (int) next), TestTables.SIMPLE));
        // every host commit and every rebuild is on main, nothing else
        assertThat(table.snapshots()).hasSize(ROUNDS * COMMITS + ROUNDS);
        assertOnDiskIsReachable(table);
    }

    @Test
    void theCapBoundsTheKeptHistoryAndWhatFellOutIsReclaimed() {
        HistorySide side = mapDb();
        Table host = side.catalog().createTable(EVENTS, TestTables.SIMPLE);
        RebuildSettings capped = keepHour.with(s -> s.historyKeepSnapshots = 15);
        Versions versions = new Versions();
        long next = 0;
        for (int round = 0; round < 3; round++) {
            for (int c = 0; c < COMMITS; c++) {
                TestTables.append(host, TestTables.simpleRows(next, ROWS));
                next += ROWS;
                host.refresh();
                versions.record(host.currentSnapshot(), next);
            }
            side.rebuild(capped, CompactionProbe.NONE);
        }
        Table table = side.table();
        // the 15 newest snapshots under the rebuilt one, and the rebuilt one
        assertThat(table.snapshots()).hasSize(16);
        List<Long> kept = versions.ids.subList(versions.ids.size() - 14, versions.ids.size());
        for (Snapshot snapshot : table.snapshots()) {
            if (!DataOperations.REPLACE.equals(snapshot.operation())) {
                assertThat(kept).contains(snapshot.snapshotId());
            }
        }
        versions.assertEveryOneReadable(table);
        assertThat(TestTables.fingerprints(table))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, (int) next), TestTables.SIMPLE));
        assertOnDiskIsReachable(table);
    }

    @Test
    void aTablesOwnMaxSnapshotAgeKeepsHistoryWhenFloeKeepsNone() {
        RebuildSettings keepNone = RebuildSettings.defaults().with(s -> {
            s.reclaimGrace = Duration.ZERO;
            s.historyKeep = Duration.ZERO;
        });
        HistorySide side = mapDb();
        Table host = side.catalog().createTable(EVENTS, TestTables.SIMPLE);
        host.updateProperties()
                .set(org.apache.iceberg.TableProperties.MAX_SNAPSHOT_AGE_MS, Long.toString(3_600_000))
                .commit();
        for (int c = 0; c < 5; c++) {
            TestTables.append(host, TestTables.simpleRows(c * 10L, 10));
        }
        side.rebuild(keepNone, CompactionProbe.NONE);
        assertThat(side.table().snapshots()).hasSize(6);

        host.updateProperties()
                .remove(org.apache.iceberg.TableProperties.MAX_SNAPSHOT_AGE_MS)
                .commit();
        TestTables.append(host, TestTables.simpleRows(50, 10));
        side.rebuild(keepNone, CompactionProbe.NONE);
        Table none = side.table();
        assertThat(none.snapshots()).hasSize(1);
        assertThat(none.currentSnapshot().parentId()).isNull();
        assertThat(TestTables.fingerprints(none))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 60), TestTables.SIMPLE));
        assertOnDiskIsReachable(none);
    }

    @Test
    void anInstallRefusedInPlaceKeepsTheHistoryItStagedOver() {
        HistorySide side = jdbc();
        Table host = side.catalog().createTable(EVENTS, TestTables.SIMPLE);
        Versions versions = new Versions();
        for (int c = 0; c < 8; c++) {
            TestTables.append(host, TestTables.simpleRows(c * 10L, 10));
            host.refresh();
            versions.record(host.currentSnapshot(), (c + 1) * 10L);
        }
        boolean[] once = {false};
        CompactionProbe elsewhere = (step, id) -> {
            if (step == CompactionStep.CAUGHT_UP && !once[0]) {
                once[0] = true; // another process's append, past this process's gate
                try (JdbcCatalog other = jdbcInstance()) {
                    TestTables.append(other.loadTable(EVENTS), TestTables.simpleRows(80, 10));
                    Table seen = other.loadTable(EVENTS);
                    versions.record(seen.currentSnapshot(), 90);
                }
            }
        };
        CompactReport report = side.rebuild(keepHour, elsewhere);

        assertThat(once[0]).isTrue();
        Table table = side.table();
        assertThat(report.carriedFiles()).isEqualTo(1);
        assertThat(table.currentSnapshot().parentId()).isEqualTo(versions.newest());
        assertThat(table.snapshots()).hasSize(10);
        versions.assertEveryOneReadable(table);
        assertThat(TestTables.fingerprints(table))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 90), TestTables.SIMPLE));
        assertOnDiskIsReachable(table);
    }

    /** The host's versions: each snapshot's id, time and how many rows (ids 0 to n - 1) it holds. */
    private static final class Versions {
        final List<Long> ids = new ArrayList<>();
        final Map<Long, Long> rows = new LinkedHashMap<>();
        final Map<Long, Long> times = new LinkedHashMap<>();

        void record(Snapshot snapshot, long rowCount) {
            ids.add(snapshot.snapshotId());
            rows.put(snapshot.snapshotId(), rowCount);
            times.put(snapshot.snapshotId(), snapshot.timestampMillis());
        }

        long newest() {
            return ids.get(ids.size() - 1);
        }

        /** Every recorded version the table still holds, by id and by its timestamp, field by field. */
        void assertEveryOneReadable(Table table) {
            int readable = 0;
            for (long id : ids) {
                if (table.snapshot(id) == null) {
                    continue;
                }
                readable += 1;
                List<String> expected =
                        TestTables.fingerprints(TestTables.simpleRows(0, (int) (long) rows.get(id)), TestTables.SIMPLE);
                assertThat(fingerprints(table, IcebergGenerics.read(table).useSnapshot(id)))
                        .as("version %s by id", id)
                        .isEqualTo(expected);
                // by timestamp: the newest snapshot at that millisecond (a commit in the same one wins)
                long time = times.get(id);
                long resolved = SnapshotUtil.snapshotIdAsOfTime(table, time);
                assertThat(table.snapshot(resolved).timestampMillis()).isEqualTo(time);
                if (rows.containsKey(resolved)) {
                    assertThat(fingerprints(table, IcebergGenerics.read(table).asOfTime(time)))
                            .as("version %s by timestamp", id)
                            .isEqualTo(TestTables.fingerprints(
                                    TestTables.simpleRows(0, (int) (long) rows.get(resolved)), TestTables.SIMPLE));
                }
            }
            assertThat(readable).isPositive();
        }

        private static List<String> fingerprints(Table table, IcebergGenerics.ScanBuilder scan) {
            List<Record> rows = new ArrayList<>();
            try (CloseableIterable<Record> records = scan.build()) {
                records.forEach(rows::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return TestTables.fingerprints(rows, table.schema());
        }
    }

    /**
     * An incremental reader, as a streaming source is: plans {@link IncrementalAppendScan} from its
     * last position to the head of {@code main} and reads the appended files' rows.
     */
    static final class Follower {
        final HistorySide side;
        final List<Long> ids = new ArrayList<>();
        Long position;

        Follower(HistorySide side) {
            this(side, null);
        }

        Follower(HistorySide side, Long position) {
            this.side = side;
            this.position = position;
        }

        void poll() {
            Table table = side.table();
            Snapshot head = table.currentSnapshot();
            if (head == null || (position != null && position == head.snapshotId())) {
                return;
            }
            IncrementalAppendScan scan = table.newIncrementalAppendScan().toSnapshot(head.snapshotId());
            if (position != null) {
                scan = scan.fromSnapshotExclusive(position);
            }
            try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
                for (FileScanTask task : tasks) {
                    try (CloseableIterable<Record> rows = Parquet.read(
                                    table.io().newInputFile(task.file().location()))
                            .project(table.schema())
                            .createReaderFunc(schema -> GenericParquetReaders.buildReader(table.schema(), schema))
                            .build()) {
                        rows.forEach(row -> ids.add((Long) row.getField("id")));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            position = head.snapshotId();
            ids.sort(null);
        }
    }

    static TableMetadata metadata(Table table) {
        return ((HasTableOperations) table).operations().current();
    }

    /**
     * Every data file, manifest and layout map under the table's folder is one the table references: what fell
     * out of the history is reclaimed, and nothing the kept history references is gone.
     */
    static void assertOnDiskIsReachable(Table table) {
        Set<String> reachable = TestTables.localPaths(ReachableFiles.of(metadata(table), table.io()));
        reachable.removeIf(f -> f.endsWith(".metadata.json"));
        String location = table.location();
        Set<String> onDisk = new TreeSet<>(TestTables.filesOnDisk(Path.of(
                location.startsWith("file:") ? java.net.URI.create(location).getPath() : location)));
        onDisk.removeIf(f -> !f.endsWith(".parquet") && !f.endsWith(".avro") && !f.endsWith(".bin"));
        assertThat(onDisk).isEqualTo(reachable);
    }
}
