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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.Test;

/**
 * Deletion vectors as Iceberg's own writers lay them out: many in one Puffin file, told apart by
 * offset; vectors that grow (the old one removed, a larger one added); vectors of files removed
 * whole. Each case rebuilds in one attempt into exactly the live rows, and Iceberg reads it.
 */
class VectorRebaseTest extends CatalogFixture {
    private final RebuildSettings settings = RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO);

    private List<DataFile> pinned(int formatVersion) {
        return RowDeltas.fourTinyFiles(catalog, CatalogFixture.EVENTS, formatVersion);
    }

    /** DVs of several data files in ONE Puffin file, as Iceberg's (Spark) writers write them. */
    static List<DeleteFile> sharedVectors(Table table, Map<DataFile, long[]> positions) {
        BaseDVFileWriter writer = new BaseDVFileWriter(
                OutputFileFactory.builderFor(table, 9, System.nanoTime())
                        .format(FileFormat.PUFFIN)
                        .build(),
                path -> null);
        try (writer) {
            positions.forEach((file, pos) -> {
                for (long p : pos) {
                    writer.delete(file.location(), p, table.spec(), null);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return writer.result().deleteFiles();
    }

    record Outcome(CompactReport report, List<String> expected, List<String> actual, Throwable readFailure) {}

    private Outcome rebuildWith(RebuildSettings with, Map<CompactionStep, Consumer<Table>> commitsAt) {
        Table host = catalog.loadTableUncached(EVENTS);
        List<String> expected = new ArrayList<>(TestTables.fingerprints(catalog.loadTableUncached(EVENTS)));
        Set<CompactionStep> done = EnumSet.noneOf(CompactionStep.class);
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
        List<String> actual = null;
        Throwable failure = null;
        try {
            actual = TestTables.fingerprints(catalog.loadTable(EVENTS));
        } catch (RuntimeException e) {
            failure = e;
        }
        return new Outcome(report, expected, actual, failure);
    }

    /** Kept files whose vectors share one Puffin file, no commit during the rebuild. */
    @Test
    void keptVectorsSharingAPuffinFileAllStay() {
        List<DataFile> files = pinned(3);
        Table table = catalog.loadTable(EVENTS);
        Map<DataFile, long[]> pos = new LinkedHashMap<>();
        pos.put(files.get(0), new long[] {1});
        pos.put(files.get(1), new long[] {2});
        RowDelta delta = table.newRowDelta();
        sharedVectors(table, pos).forEach(delta::addDeletes);
        delta.commit();
        Outcome o = rebuildWith(settings.with(s -> s.targetFileBytes = 1), Map.of());
        assertRebuiltInOneAttempt(o);
    }

    /** A rewritten file's DV and a kept file's DV share a Puffin; the rewritten one's DV grows mid-rebuild. */
    @Test
    void aRewrittenFilesVectorGrowingKeepsTheKeptVectorInTheSamePuffin() {
        List<DataFile> files = pinned(3);
        Table table = catalog.loadTable(EVENTS);
        Map<DataFile, long[]> pos = new LinkedHashMap<>();
        pos.put(files.get(0), new long[] {0, 1, 2, 3}); // 40%: rewritten
        pos.put(files.get(1), new long[] {2}); // 10%: kept
        RowDelta delta = table.newRowDelta();
        sharedVectors(table, pos).forEach(delta::addDeletes);
        delta.commit();
        Outcome o = rebuildWith(settings.with(s -> s.targetFileBytes = 1), Map.of(CompactionStep.ROWS_WRITTEN, host -> {
            DeleteFile previous = null;
            try (var tasks = host.newScan().planFiles()) {
                for (var task : tasks) {
                    if (task.file().location().equals(files.get(0).location())) {
                        previous = task.deletes().get(0);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            DeleteFile prev = previous;
            BaseDVFileWriter w = new BaseDVFileWriter(
                    OutputFileFactory.builderFor(host, 9, System.nanoTime())
                            .format(FileFormat.PUFFIN)
                            .build(),
                    path -> new org.apache.iceberg.data.BaseDeleteLoader(
                                    f -> host.io().newInputFile(f.location()))
                            .loadPositionDeletes(List.of(prev), path));
            try (w) {
                w.delete(files.get(0).location(), 4, host.spec(), null);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            RowDelta grow = host.newRowDelta()
                    .validateFromSnapshot(host.currentSnapshot().snapshotId());
            w.result().deleteFiles().forEach(grow::addDeletes);
            w.result().rewrittenDeleteFiles().forEach(grow::removeDeletes);
            grow.commit();
        }));
        assertRebuiltInOneAttempt(o);
    }

    /** Two vectors written by one flush share a Puffin file; one is superseded under the gate. */
    @Test
    void aRebasedVectorSupersededUnderTheGateIsNotListedTwice() {
        List<DataFile> files = pinned(3);
        Outcome o = rebuildWith(
                settings,
                Map.of(
                        CompactionStep.ROWS_WRITTEN,
                        host -> {
                            TestTables.append(host, TestTables.simpleRows(100, 5));
                            host.newRowDelta()
                                    .addDeletes(RowDeltas.vector(host, files.get(1), new ArrayList<>(), 3))
                                    .addDeletes(RowDeltas.equalityDeletes(host, 101))
                                    .commit();
                        },
                        CompactionStep.MANIFEST_WRITTEN,
                        host -> host.newRowDelta()
                                .addDeletes(RowDeltas.vector(host, files.get(2), new ArrayList<>(), 0))
                                .commit()));
        assertRebuiltInOneAttempt(o);
    }

    /** Vectors of two kept files in one Puffin, committed mid-rebuild. */
    @Test
    void carriedVectorsSharingAPuffinFileAllStay() {
        List<DataFile> files = pinned(3);
        Outcome o = rebuildWith(settings.with(s -> s.targetFileBytes = 1), Map.of(CompactionStep.ROWS_WRITTEN, host -> {
            Map<DataFile, long[]> pos = new LinkedHashMap<>();
            pos.put(files.get(0), new long[] {1});
            pos.put(files.get(1), new long[] {2});
            RowDelta delta = host.newRowDelta();
            sharedVectors(host, pos).forEach(delta::addDeletes);
            delta.commit();
        }));
        assertRebuiltInOneAttempt(o);
    }

    /** A carried file's vector, merged into the one floe writes for it, is still merged at the next flush. */
    @Test
    void aCarriedVectorMergedIntoARebasedOneStaysMergedAtTheNextFlush() {
        pinned(3);
        DataFile[] carried = new DataFile[1];
        Outcome o = rebuildWith(
                settings,
                Map.of(
                        CompactionStep.ROWS_WRITTEN,
                        host -> {
                            carried[0] = TestTables.writeFile(host, TestTables.simpleRows(100, 10));
                            host.newFastAppend().appendFile(carried[0]).commit();
                            host.newRowDelta()
                                    .addDeletes(RowDeltas.vector(host, carried[0], new ArrayList<>(), 5))
                                    .commit();
                            host.newRowDelta()
                                    .addDeletes(RowDeltas.equalityDeletes(host, 101))
                                    .commit();
                        },
                        CompactionStep.MANIFEST_WRITTEN,
                        host -> host.newRowDelta()
                                .addDeletes(RowDeltas.equalityDeletes(host, 102))
                                .commit()));
        assertRebuiltInOneAttempt(o);
    }

    /** A rewritten file whose vector the rebuild applied is deleted whole (Iceberg drops its vector too). */
    @Test
    void deletingARewrittenFileWithAVectorIsRebasedWithoutStartingAgain() {
        List<DataFile> files = pinned(3);
        Table table = catalog.loadTable(EVENTS);
        table.newRowDelta()
                .addDeletes(RowDeltas.vector(table, files.get(1), new ArrayList<>(), 5))
                .commit();
        Outcome o = rebuildWith(
                settings,
                Map.of(
                        CompactionStep.ROWS_WRITTEN,
                        host -> host.newDelete().deleteFile(files.get(1)).commit()));
        assertRebuiltInOneAttempt(o);
    }

    /** Read by Iceberg without failure (one vector per data file at most), the live rows, one attempt. */
    private static void assertRebuiltInOneAttempt(Outcome o) {
        assertThat(o.readFailure()).isNull();
        assertThat(o.actual()).isEqualTo(o.expected());
        assertThat(o.report().attempts()).as("no restart").isEqualTo(1);
    }
}
