package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.install.HistoryRewrites;
import dev.floe.runtime.testing.RowDeltas;
import dev.floe.runtime.testing.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kept snapshots rewritten onto the rebuilt layout ({@code floe.history.rewrite-after}, seed 001):
 * every kept version answers time travel, by id and by timestamp, with exactly the rows it had,
 * while it lists only the rebuilt files (with position deletes for the rows it did not hold, or its
 * own files where a later delete took rows the rebuilt files no longer hold), and the small files
 * only the old layouts referenced are gone from disk. In floe's catalog (a swap) and in place (JDBC
 * on SQLite).
 */
class HistoryRewriteTest {
    static final int ROUNDS = 4;
    static final int COMMITS = 10;
    static final int ROWS = 10;

    @TempDir
    Path root;

    final List<AutoCloseable> opened = new ArrayList<>();
    final RebuildSettings rewriteAll = RebuildSettings.defaults().with(s -> {
        s.reclaimGrace = Duration.ZERO;
        s.historyKeep = Duration.ofHours(1);
        s.historyRewriteAfter = Duration.ZERO;
    });

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    @Test
    void swapRewritesKeptVersionsOntoTheRebuiltFiles() {
        appendsAcrossRebuilds(HistorySide.mapDb(root, opened));
    }

    @Test
    void inPlaceRewritesKeptVersionsOntoTheRebuiltFiles() {
        appendsAcrossRebuilds(HistorySide.jdbc(root, opened));
    }

    private void appendsAcrossRebuilds(HistorySide side) {
        Table host = side.catalog().createTable(HistorySide.EVENTS, TestTables.SIMPLE);
        Versions versions = new Versions();
        long next = 0;
        for (int round = 0; round < ROUNDS; round++) {
            for (int c = 0; c < COMMITS; c++) {
                TestTables.append(host, TestTables.simpleRows(next, ROWS));
                next += ROWS;
                versions.record(host);
            }
            side.rebuild(rewriteAll, CompactionProbe.NONE);
            Table table = side.table();
            versions.assertEveryOneReadable(table);
            assertOnTheRebuiltLayout(table);
            HistoryKeptTest.assertOnDiskIsReachable(table);
        }
        Table table = side.table();
        assertThat(table.snapshots()).hasSize(ROUNDS * COMMITS + ROUNDS);
        assertThat(versions.readable(table)).isEqualTo(ROUNDS * COMMITS);
        // no version lists a small file the host appended, and (every file on disk being referenced)
        // they are gone: only the rebuilt layout's data files are left
        assertThat(dataFilesOfAnyVersion(table)).isEqualTo(dataFiles(table, table.currentSnapshot()));
        assertThat(onDisk(table)).doesNotContainAnyElementsOf(TestTables.localPaths(versions.appended));
        // a rewritten snapshot is no longer an ancestor of main: an incremental reader positioned on
        // one fails, as on an expired snapshot, instead of reading a layout that no longer tells what
        // each commit added
        long rewritten = versions.ids.get(COMMITS);
        assertThat(SnapshotUtil.isAncestorOf(table, table.currentSnapshot().snapshotId(), rewritten))
                .isFalse();
        assertThatThrownBy(() -> new HistoryKeptTest.Follower(side, rewritten).poll())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a parent ancestor");
    }

    /**
     * On a table larger than the fragment each rebuild packs again, a version is rewritten once: the
     * versions on the previous rebuild's fragment stay on it (a few kilobytes, not worth a rewrite of
     * each), and only those committed since are rewritten.
     */
    @Test
    void aVersionOnTheFragmentOfAnEarlierRebuildIsNotRewrittenAgain() {
        RebuildSettings settled = rewriteAll.with(s -> s.targetFileBytes = 64L << 10);
        HistorySide side = HistorySide.mapDb(root, opened);
        Table host = side.catalog().createTable(HistorySide.EVENTS, TestTables.SIMPLE);
        Versions versions = new Versions();
        // one file past the settled size (3/4 of the target): it stays in every layout
        TestTables.append(host, TestTables.simpleRows(0, 40_000));
        versions.record(host);
        Set<String> large = new HashSet<>(versions.appended);
        long next = 40_000;
        Map<Long, String> rewrittenBy = new LinkedHashMap<>();
        Set<String> fragments = new HashSet<>();
        for (int round = 0; round < 3; round++) {
            for (int c = 0; c < COMMITS; c++) {
                TestTables.append(host, TestTables.simpleRows(next, ROWS));
                next += ROWS;
                versions.record(host);
            }
            CompactReport report = side.rebuild(settled, CompactionProbe.NONE);
            assertThat(report.historyRewritten()).as("round %d", round).isEqualTo(COMMITS);
            Table table = side.table();
            versions.assertEveryOneReadable(table);
            for (Snapshot snapshot : table.snapshots()) {
                String onto = snapshot.summary().get(HistoryRewrites.REWRITTEN);
                if (onto != null) {
                    // rewritten once, by the rebuild that first found it older than the setting
                    assertThat(rewrittenBy.putIfAbsent(snapshot.snapshotId(), onto))
                            .isIn(null, onto);
                }
                assertThat(dataFiles(table, snapshot)).doesNotContainAnyElementsOf(small(versions, large));
            }
            fragments.addAll(dataFiles(table, table.currentSnapshot()));
        }
        Table table = side.table();
        assertThat(rewrittenBy).hasSize(3 * COMMITS);
        // the host's small files are gone; the earlier fragments stay for the versions on them
        Set<String> disk = onDisk(table);
        assertThat(disk).doesNotContainAnyElementsOf(TestTables.localPaths(small(versions, large)));
        assertThat(disk).containsAll(TestTables.localPaths(dataFilesOfAnyVersion(table)));
        assertThat(dataFilesOfAnyVersion(table)).containsAll(fragments);
        HistoryKeptTest.assertOnDiskIsReachable(table);
    }

    private static Set<String> small(Versions versions, Set<String> large) {
        Set<String> small = new HashSet<>(versions.appended);
        small.removeAll(large);
        return small;
    }

    @Test
    void aVersionWhoseRowsALaterCommitDeletedKeepsTheFilesThatHoldThem() {
        HistorySide side = HistorySide.jdbc(root, opened);
        List<DataFile> files = RowDeltas.fourTinyFiles(side.catalog(), HistorySide.EVENTS, 2);
        Table host = side.table();
        Versions versions = new Versions();
        versions.record(host);
        // a position delete in one file, an equality delete in another: rows the versions before
        // them hold, and that no rebuild keeps
        host.newRowDelta()
                .addDeletes(RowDeltas.positionDeletes(host, files.get(0), 3, 4))
                .commit();
        versions.record(host);
        host.newRowDelta().addDeletes(RowDeltas.equalityDeletes(host, 25, 26)).commit();
        versions.record(host);
        TestTables.append(host, TestTables.simpleRows(40, 10));
        versions.record(host);
        side.rebuild(rewriteAll, CompactionProbe.NONE);
        Table table = side.table();
        versions.assertEveryOneReadable(table);
        Snapshot beforeTheDeletes = table.snapshot(versions.ids.get(0));
        assertThat(beforeTheDeletes.summary()).containsKey(HistoryRewrites.REWRITTEN);
        // the two files that lost rows are listed as they were; the other two left for the rebuilt one
        Set<String> listed = dataFiles(table, beforeTheDeletes);
        assertThat(listed).contains(files.get(0).location(), files.get(2).location());
        assertThat(listed).doesNotContain(files.get(1).location(), files.get(3).location());

        TestTables.append(host, TestTables.simpleRows(50, 10));
        versions.record(host);
        side.rebuild(rewriteAll, CompactionProbe.NONE);
        table = side.table();
        versions.assertEveryOneReadable(table);
        assertThat(versions.readable(table)).isEqualTo(versions.ids.size());
        HistoryKeptTest.assertOnDiskIsReachable(table);
    }

    @Test
    void snapshotsYoungerThanRewriteAfterKeepTheirLayout() {
        HistorySide side = HistorySide.mapDb(root, opened);
        Table host = side.catalog().createTable(HistorySide.EVENTS, TestTables.SIMPLE);
        Versions versions = new Versions();
        Set<String> appended = new HashSet<>();
        for (int c = 0; c < COMMITS; c++) {
            TestTables.append(host, TestTables.simpleRows(c * 10L, 10));
            versions.record(host);
            appended.addAll(dataFiles(host, host.currentSnapshot()));
        }
        side.rebuild(rewriteAll.with(s -> s.historyRewriteAfter = Duration.ofHours(1)), CompactionProbe.NONE);
        Table table = side.table();
        for (long id : versions.ids) {
            Snapshot snapshot = table.snapshot(id);
            assertThat(snapshot.summary()).doesNotContainKey(HistoryRewrites.REWRITTEN);
            assertThat(appended).containsAll(dataFiles(table, snapshot));
        }
        assertThat(onDisk(table)).containsAll(TestTables.localPaths(appended));
        versions.assertEveryOneReadable(table);
    }

    @Test
    void aPrunedRowLeavesEveryRewrittenVersion() {
        HistorySide side = HistorySide.jdbc(root, opened);
        List<DataFile> files = RowDeltas.fourTinyFiles(side.catalog(), HistorySide.EVENTS, 2);
        Table host = side.table();
        Versions versions = new Versions();
        versions.record(host);
        // a later delete keeps the first file as it is in the versions before it: the prune reaches it there too
        host.newRowDelta()
                .addDeletes(RowDeltas.positionDeletes(host, files.get(0), 1))
                .commit();
        versions.record(host);
        TestTables.append(host, TestTables.simpleRows(40, 10));
        versions.record(host);
        Prune forgetSevens = row -> (Long) row.getField("id") % 7 == 0;
        side.rebuild(rewriteAll, CompactionProbe.NONE, forgetSevens);
        Table table = side.table();
        for (long id : versions.ids) {
            List<String> expected = new ArrayList<>();
            List<Record> rows =
                    Versions.records(table, IcebergGenerics.read(table).useSnapshot(id));
            assertThat(rows).as("version %s", id).noneMatch(row -> (Long) row.getField("id") % 7 == 0);
            for (String row : versions.rows.get(id)) {
                if (idOf(row) % 7 != 0) {
                    expected.add(row); // field 1 is the id
                }
            }
            assertThat(TestTables.fingerprints(rows, table.schema()))
                    .as("version %s", id)
                    .isEqualTo(expected);
        }
        assertThat(TestTables.fingerprints(table)).noneMatch(row -> idOf(row) % 7 == 0);
        HistoryKeptTest.assertOnDiskIsReachable(table);
    }

    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("^\\{1=LONG:(-?\\d+),");

    @Test
    void aVersionNotWorthRewritingBelowRewrittenOnesStaysKept() {
        HistorySide side = HistorySide.jdbc(root, opened);
        List<DataFile> files = RowDeltas.fourTinyFiles(side.catalog(), HistorySide.EVENTS, 2);
        Table host = side.table();
        Versions versions = new Versions();
        // the first version lists only the first file, which a later delete takes a row of: it keeps
        // its layout, below the versions after it that are rewritten
        long first = host.snapshots().iterator().next().snapshotId();
        versions.record(host);
        host.newRowDelta()
                .addDeletes(RowDeltas.positionDeletes(host, files.get(0), 0))
                .commit();
        versions.record(host);
        for (int round = 0; round < 3; round++) {
            TestTables.append(host, TestTables.simpleRows(100 + round * 10L, 10));
            versions.record(host);
            side.rebuild(rewriteAll, CompactionProbe.NONE);
            Table table = side.table();
            Snapshot kept = table.snapshot(first);
            assertThat(kept).as("round %s", round).isNotNull();
            assertThat(kept.summary()).doesNotContainKey(HistoryRewrites.REWRITTEN);
            assertThat(kept.summary()).containsKey(HistoryRewrites.ROOTED);
            assertThat(IcebergGenerics.read(table).useSnapshot(first).build()).hasSize(10);
            versions.assertEveryOneReadable(table);
            assertThat(versions.readable(table)).isEqualTo(versions.ids.size());
            HistoryKeptTest.assertOnDiskIsReachable(table);
        }
    }

    @Test
    void aVersionWithAFieldDroppedSinceKeepsItsLayoutAndItsRows() {
        HistorySide side = HistorySide.mapDb(root, opened);
        Table host = side.catalog().createTable(HistorySide.EVENTS, TestTables.SIMPLE);
        Versions versions = new Versions();
        for (int c = 0; c < 3; c++) {
            TestTables.append(host, TestTables.simpleRows(c * 10L, 10));
            versions.record(host);
        }
        host.updateSchema().deleteColumn("score").commit();
        host.refresh();
        for (int c = 3; c < 5; c++) {
            List<org.apache.iceberg.data.Record> rows = new ArrayList<>();
            for (long id = c * 10L; id < c * 10L + 10; id++) {
                org.apache.iceberg.data.Record row = org.apache.iceberg.data.GenericRecord.create(host.schema());
                row.setField("id", id);
                row.setField("name", "n" + id);
                rows.add(row);
            }
            TestTables.append(host, rows);
            versions.record(host);
        }
        side.rebuild(rewriteAll, CompactionProbe.NONE);
        Table table = side.table();
        for (int v = 0; v < versions.ids.size(); v++) {
            Snapshot snapshot = table.snapshot(versions.ids.get(v));
            // before the drop a version has the column the rebuilt files lack: it keeps its layout
            assertThat(snapshot.summary().containsKey(HistoryRewrites.REWRITTEN))
                    .as("version %s rewritten", v)
                    .isEqualTo(v >= 3);
        }
        versions.assertEveryOneReadable(table);
        HistoryKeptTest.assertOnDiskIsReachable(table);
    }

    /** The id of a row's fingerprint, {@code {1=LONG:<id>,2=...}} (field 1 is the id). */
    private static long idOf(String fingerprint) {
        java.util.regex.Matcher id = ID.matcher(fingerprint);
        if (!id.find()) {
            throw new IllegalArgumentException("no id in " + fingerprint);
        }
        return Long.parseLong(id.group(1));
    }

    /** Every snapshot of {@code table} lists only data files its current snapshot lists, or its own that a later delete touched. */
    private static void assertOnTheRebuiltLayout(Table table) {
        Set<String> layout = dataFiles(table, table.currentSnapshot());
        for (Snapshot snapshot : table.snapshots()) {
            assertThat(layout)
                    .as("the files of snapshot %s", snapshot.snapshotId())
                    .containsAll(dataFiles(table, snapshot));
            assertThat(snapshot.summary().get(SnapshotSummary.TOTAL_DATA_FILES_PROP))
                    .isEqualTo(Integer.toString(dataFiles(table, snapshot).size()));
            if (snapshot.snapshotId() != table.currentSnapshot().snapshotId()) {
                assertThat(snapshot.summary()).containsKey(HistoryRewrites.REWRITTEN);
                assertThat(snapshot.parentId()).isNull();
            }
        }
    }

    private static Set<String> dataFiles(Table table, Snapshot snapshot) {
        Set<String> files = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            tasks.forEach(task -> files.add(task.file().location()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** Every data file some snapshot of {@code table} lists. */
    private static Set<String> dataFilesOfAnyVersion(Table table) {
        Set<String> files = new HashSet<>();
        table.snapshots().forEach(snapshot -> files.addAll(dataFiles(table, snapshot)));
        return files;
    }

    /** The files under {@code table}'s location, as local paths. */
    private static Set<String> onDisk(Table table) {
        String location = table.location();
        return TestTables.filesOnDisk(Path.of(
                location.startsWith("file:") ? java.net.URI.create(location).getPath() : location));
    }

    /** The host's versions: each snapshot's id, time and rows (as fingerprints). */
    private static final class Versions {
        final List<Long> ids = new ArrayList<>();
        final Map<Long, List<String>> rows = new LinkedHashMap<>();
        final Map<Long, Long> times = new LinkedHashMap<>();
        final Set<String> appended = new HashSet<>();

        void record(Table table) {
            table.refresh();
            Snapshot snapshot = table.currentSnapshot();
            snapshot.addedDataFiles(table.io()).forEach(file -> appended.add(file.location()));
            ids.add(snapshot.snapshotId());
            rows.put(snapshot.snapshotId(), TestTables.fingerprints(table));
            times.put(snapshot.snapshotId(), snapshot.timestampMillis());
        }

        int readable(Table table) {
            return (int) ids.stream().filter(id -> table.snapshot(id) != null).count();
        }

        /** Every recorded version the table still holds, by id and by its timestamp, field by field. */
        void assertEveryOneReadable(Table table) {
            for (long id : ids) {
                if (table.snapshot(id) == null) {
                    continue;
                }
                assertThat(read(table, id, IcebergGenerics.read(table).useSnapshot(id)))
                        .as("version %s by id", id)
                        .isEqualTo(rows.get(id));
                long resolved = SnapshotUtil.snapshotIdAsOfTime(table, times.get(id));
                if (rows.containsKey(resolved)) {
                    assertThat(read(table, resolved, IcebergGenerics.read(table).asOfTime(times.get(id))))
                            .as("version %s by timestamp", id)
                            .isEqualTo(rows.get(resolved));
                }
            }
            assertThat(readable(table)).isPositive();
        }

        /** The rows {@code scan} reads of version {@code id}, in that version's schema. */
        private static List<String> read(Table table, long id, IcebergGenerics.ScanBuilder scan) {
            return TestTables.fingerprints(
                    records(table, scan), table.schemas().get(table.snapshot(id).schemaId()));
        }

        static List<Record> records(Table table, IcebergGenerics.ScanBuilder scan) {
            List<Record> records = new ArrayList<>();
            try (CloseableIterable<Record> rows = scan.build()) {
                rows.forEach(records::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return records;
        }
    }
}
