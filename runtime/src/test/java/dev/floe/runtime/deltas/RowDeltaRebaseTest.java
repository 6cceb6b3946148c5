package dev.floe.runtime.deltas;

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
import dev.floe.runtime.testing.RowDeltas;
import dev.floe.runtime.testing.TestTables;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;

/**
 * Row deltas that commit while a rebuild runs, between its stream and its gate (or after its
 * manifests are written, just before the gate), are rebased onto the rebuilt files through the
 * compaction map: each lands on exactly the rows it meant, and the rebuild does not start again.
 *
 * <p>The table: four tiny files of ten rows (ids 0-9, 10-19, 20-29, 30-39), all rewritten into one;
 * row {@code p} of file {@code f} has id {@code 10 f + p}.
 */
class RowDeltaRebaseTest extends CatalogFixture {
    private final RebuildSettings settings = RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO);

    private List<DataFile> pinned(int formatVersion) {
        return RowDeltas.fourTinyFiles(catalog, CatalogFixture.EVENTS, formatVersion);
    }

    /** Rebuilds with {@code commits} made through a host handle once, at {@code step}. */
    private Rebuilt rebuildWith(CompactionStep step, RebuildSettings with, Consumer<Table> commits) {
        return rebuildWith(with, java.util.Map.of(step, commits));
    }

    /**
     * Rebuilds with commits made through a host handle once at each of the steps given; asserts that
     * it did not start again and holds one snapshot of exactly the live rows after the last commits.
     */
    private Rebuilt rebuildWith(RebuildSettings with, java.util.Map<CompactionStep, Consumer<Table>> commitsAt) {
        Table host = catalog.loadTableUncached(EVENTS);
        List<String> expected = new ArrayList<>();
        java.util.Set<CompactionStep> done = java.util.EnumSet.noneOf(CompactionStep.class);
        CompactionProbe probe = (reached, id) -> {
            Consumer<Table> commits = commitsAt.get(reached);
            if (commits != null && done.add(reached)) {
                host.refresh();
                commits.accept(host);
                expected.clear();
                expected.addAll(TestTables.fingerprints(catalog.loadTableUncached(EVENTS)));
            }
        };
        CompactReport report = new Compactor(with, new WriterGate(), new HandleRegistry(0), probe, Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);
        assertThat(done).isEqualTo(commitsAt.keySet());
        Table rebuilt = catalog.loadTable(EVENTS);
        assertThat(report.attempts()).as("no restart").isEqualTo(1);
        TestTables.rebuiltSnapshot(rebuilt);
        assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(expected);
        return new Rebuilt(rebuilt, report, expected);
    }

    private record Rebuilt(Table table, CompactReport report, List<String> rows) {}

    private static List<String> rowsWithout(long... ids) {
        List<org.apache.iceberg.data.Record> rows = new ArrayList<>(TestTables.simpleRows(0, 40));
        for (long id : ids) {
            rows.removeIf(r -> (Long) r.getField("id") == id);
        }
        return TestTables.fingerprints(rows, TestTables.SIMPLE);
    }

    @Test
    void aPositionDeleteOfARewrittenFileLandsOnItsRowsNewPlace() {
        List<DataFile> files = pinned(2);
        Table table = catalog.loadTable(EVENTS);
        // before the pin: row 5 of the first file deleted (the rebuild applies it)
        table.newRowDelta()
                .addDeletes(RowDeltas.positionDeletes(table, files.get(0), 5))
                .commit();

        Rebuilt rebuilt = rebuildWith(
                CompactionStep.ROWS_WRITTEN,
                settings,
                host -> host.newRowDelta()
                        .addDeletes(RowDeltas.positionDeletes(host, files.get(1), 3, 7))
                        // a row the rebuild already dropped: its delete vanishes
                        .addDeletes(RowDeltas.positionDeletes(host, files.get(0), 5, 6))
                        .commit());

        assertThat(rebuilt.rows()).isEqualTo(rowsWithout(5, 6, 13, 17));
        List<DeleteFile> deletes = RowDeltas.deleteFiles(rebuilt.table());
        assertThat(deletes).allSatisfy(d -> assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES));
        assertThat(deletes.stream().mapToLong(DeleteFile::recordCount).sum())
                .as("rows 6, 13 and 17 at their new places; row 5 was gone already")
                .isEqualTo(3);
        assertThat(deletes).allSatisfy(d -> assertThat(d.location()).contains("floe-rebase"));
    }

    @Test
    void aDeletionVectorOfARewrittenFileLandsOnItsRowsNewPlace() {
        List<DataFile> files = pinned(3);
        Table table = catalog.loadTable(EVENTS);
        table.newRowDelta()
                .addDeletes(RowDeltas.vector(table, files.get(0), new ArrayList<>(), 5))
                .commit();

        Rebuilt rebuilt = rebuildWith(CompactionStep.ROWS_WRITTEN, settings, host -> {
            List<DeleteFile> replaced = new ArrayList<>();
            RowDelta delta = host.newRowDelta()
                    .validateFromSnapshot(host.currentSnapshot().snapshotId())
                    .addDeletes(RowDeltas.vector(host, files.get(0), replaced, 6))
                    .addDeletes(RowDeltas.vector(host, files.get(2), new ArrayList<>(), 0, 9));
            replaced.forEach(delta::removeDeletes); // the vector grew: the old one goes
            delta.commit();
        });

        assertThat(rebuilt.rows()).isEqualTo(rowsWithout(5, 6, 20, 29));
        List<DeleteFile> deletes = RowDeltas.deleteFiles(rebuilt.table());
        assertThat(deletes).allSatisfy(d -> assertThat(ContentFileUtil.isDV(d)).isTrue());
        assertThat(deletes).as("one vector per rebuilt data file").hasSize(1);
        assertThat(deletes.get(0).recordCount()).isEqualTo(3);
    }

    @Test
    void anEqualityDeleteAppliesToThePinnedRowsAndToTheCarriedFilesBeforeItOnly() {
        pinned(2);
        Rebuilt rebuilt = rebuildWith(CompactionStep.ROWS_WRITTEN, settings, host -> {
            TestTables.append(host, TestTables.simpleRows(100, 5)); // 100-104, then 101 and 2 upserted:
            host.newRowDelta()
                    .addRows(TestTables.writeFile(host, List.of(TestTables.simpleRow(101))))
                    .addDeletes(RowDeltas.equalityDeletes(host, 2, 101))
                    .commit();
            TestTables.append(host, List.of(TestTables.simpleRow(2)));
        });

        List<String> expected = rowsWithout();
        expected.addAll(TestTables.fingerprints(TestTables.simpleRows(100, 5), TestTables.SIMPLE));
        expected.sort(null);
        assertThat(rebuilt.rows()).isEqualTo(expected);
        List<DeleteFile> deletes = RowDeltas.deleteFiles(rebuilt.table());
        assertThat(deletes)
                .extracting(DeleteFile::content)
                .containsExactlyInAnyOrder(FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES);

        // the next rebuild applies the carried equality delete: none is left to read
        new Compactor(settings.with(s -> s.fullEvery = 1)).compactTable(catalog, EVENTS, Prune.NONE);
        Table again = catalog.loadTable(EVENTS);
        assertThat(TestTables.fingerprints(again)).isEqualTo(expected);
        assertThat(RowDeltas.deleteFiles(again)).isEmpty();
    }

    @Test
    void anOverwriteOfARewrittenFileRemovesItsRowsAndCarriesWhatItAdds() {
        List<DataFile> files = pinned(2);
        Rebuilt rebuilt = rebuildWith(
                CompactionStep.ROWS_WRITTEN,
                settings,
                host -> host.newOverwrite()
                        .deleteFile(files.get(1))
                        .addFile(TestTables.writeFile(host, TestTables.simpleRows(200, 5)))
                        .commit());

        List<String> expected = rowsWithout(10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
        expected.addAll(TestTables.fingerprints(TestTables.simpleRows(200, 5), TestTables.SIMPLE));
        expected.sort(null);
        assertThat(rebuilt.rows()).isEqualTo(expected);
        assertThat(rebuilt.report().carriedFiles()).isEqualTo(1);
    }

    @Test
    void aDeleteOfAKeptFileOrOfACarriedOneLeavesTheRebuiltTable() {
        List<DataFile> files = pinned(2);
        // every file settled: all four are kept as they are
        Rebuilt rebuilt = rebuildWith(CompactionStep.ROWS_WRITTEN, settings.with(s -> s.targetFileBytes = 1), host -> {
            host.newDelete().deleteFile(files.get(0)).commit();
            DataFile carried = TestTables.writeFile(host, TestTables.simpleRows(300, 3));
            host.newFastAppend().appendFile(carried).commit();
            host.newDelete().deleteFile(carried).commit();
        });

        assertThat(rebuilt.rows()).isEqualTo(rowsWithout(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
        assertThat(RowDeltas.dataFiles(rebuilt.table()))
                .extracting(DataFile::location)
                .containsExactlyInAnyOrder(
                        files.get(1).location(),
                        files.get(2).location(),
                        files.get(3).location());
        assertThat(RowDeltas.deleteFiles(rebuilt.table())).isEmpty();
    }

    @Test
    void commitsAfterTheManifestsAreWrittenAreRebasedToo() {
        List<DataFile> files = pinned(2);
        DataFile[] carried = new DataFile[1];
        // the carried file goes into the pre-written manifest; then it is deleted, and a pinned row too
        Rebuilt rebuilt = rebuildWith(
                settings,
                java.util.Map.of(
                        CompactionStep.ROWS_WRITTEN,
                        host -> {
                            carried[0] = TestTables.writeFile(host, TestTables.simpleRows(400, 4));
                            host.newFastAppend().appendFile(carried[0]).commit();
                        },
                        CompactionStep.MANIFEST_WRITTEN,
                        host -> {
                            host.newRowDelta()
                                    .addDeletes(RowDeltas.positionDeletes(host, files.get(3), 0))
                                    .commit();
                            host.newDelete().deleteFile(carried[0]).commit();
                        }));

        assertThat(rebuilt.rows()).isEqualTo(rowsWithout(30));
        assertThat(RowDeltas.dataFiles(rebuilt.table())).hasSize(1);
    }

    @Test
    void aCommitUndoingADeleteTheRebuildRebasedStartsItAgainAndIsKept() {
        pinned(2);
        Table host = catalog.loadTableUncached(EVENTS);
        DeleteFile[] equality = new DeleteFile[1];
        CompactionProbe upsertThenUndo = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN && equality[0] == null) {
                host.refresh();
                TestTables.append(host, TestTables.simpleRows(100, 2));
                equality[0] = RowDeltas.equalityDeletes(host, 3, 100);
                host.newRowDelta().addDeletes(equality[0]).commit();
            } else if (step == CompactionStep.MANIFEST_WRITTEN && equality[0] != null && host.snapshots() != null) {
                host.refresh();
                if (RowDeltas.deleteFiles(host).stream()
                        .anyMatch(d -> d.location().equals(equality[0].location()))) {
                    host.newRowDelta().removeDeletes(equality[0]).commit(); // rows 3 and 100 are back
                }
            }
        };

        CompactReport report = new Compactor(
                        settings, new WriterGate(), new HandleRegistry(0), upsertThenUndo, Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.attempts()).isEqualTo(2);
        List<String> expected = rowsWithout();
        expected.addAll(TestTables.fingerprints(TestTables.simpleRows(100, 2), TestTables.SIMPLE));
        expected.sort(null);
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(expected);
    }
}
