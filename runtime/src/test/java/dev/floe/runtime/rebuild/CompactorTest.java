package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildException;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableBusyException;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.install.ScratchTable;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.ReachableFiles;
import dev.floe.runtime.seam.RebuildJournal;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.testing.CatalogFixture;
import dev.floe.runtime.testing.TestTables;
import dev.floe.runtime.upkeep.Reclaimer;
import dev.floe.runtime.upkeep.Recovery;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.junit.jupiter.api.Test;

/**
 * One rebuild's steps on floe's catalog. These rebuilds keep no history ({@code floe.history.keep=0s}),
 * so what they retire is reclaimed at once; {@code HistoryKeptTest} covers the default, history kept.
 */
class CompactorTest extends CatalogFixture {
    RebuildSettings settings = RebuildSettings.defaults().with(s -> {
        s.reclaimGrace = Duration.ZERO;
        s.historyKeep = Duration.ZERO;
    });

    private Table eventsWithTinyAppends(int appends, int rowsPerAppend) {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int i = 0; i < appends; i++) {
            TestTables.append(table, TestTables.simpleRows((long) i * rowsPerAppend, rowsPerAppend));
        }
        return table;
    }

    private Compactor compactor() {
        return new Compactor(settings);
    }

    @Test
    void compactPreservesContentAndCollapsesSnapshots() throws Exception {
        Table table = eventsWithTinyAppends(20, 5);
        assertThat(table.snapshots()).hasSize(20);
        List<String> before = TestTables.fingerprints(table);
        assertThat(before).hasSize(100);

        CompactReport report = compactor().compactTable(catalog, EVENTS, Prune.NONE);

        Table rebuilt = catalog.loadTable(EVENTS);
        assertThat(rebuilt.snapshots()).hasSize(1);
        assertThat(dataFiles(rebuilt)).hasSize(1);
        assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(before);
        assertThat(report.snapshotsBefore()).isEqualTo(20);
        assertThat(report.dataFilesBefore()).isEqualTo(20);
        assertThat(report.dataFilesAfter()).isEqualTo(1);
        assertThat(report.rows()).isEqualTo(100);
        assertThat(report.rowsPruned()).isZero();
        assertThat(report.phases())
                .containsKeys("scratch", "stream", "catch-up", "gate-wait", "commit", "swap", "reclaim");

        catalog.close();
        catalog = TestTables.catalog(root);
        Table reopened = catalog.loadTable(EVENTS);
        assertThat(reopened.snapshots()).hasSize(1);
        assertThat(TestTables.fingerprints(reopened)).isEqualTo(before);
        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
    }

    @Test
    void compactWithPruneDropsSelectedRowsOnly() {
        Table table = eventsWithTinyAppends(10, 10);
        List<Record> all = TestTables.read(table);
        Prune dropOdd = row -> ((Long) row.getField("id")) % 2 == 1;

        CompactReport report = compactor().compactTable(catalog, EVENTS, dropOdd);

        List<Record> kept =
                all.stream().filter(r -> ((Long) r.getField("id")) % 2 == 0).collect(Collectors.toList());
        Table rebuilt = catalog.loadTable(EVENTS);
        assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(TestTables.fingerprints(kept, rebuilt.schema()));
        assertThat(report.rows()).isEqualTo(50);
        assertThat(report.rowsPruned()).isEqualTo(50);
        assertThat(report.rows() + report.rowsPruned()).isEqualTo(all.size());
    }

    @Test
    void liveNameResolvesToTheRebuiltTable() {
        Table table = eventsWithTinyAppends(3, 2);
        String before = catalog.metadataLocation(EVENTS);
        String uuid = ((HasTableOperations) table).operations().current().uuid();

        compactor().compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(catalog.metadataLocation(EVENTS)).isNotEqualTo(before);
        Snapshot only = catalog.loadTable(EVENTS).currentSnapshot();
        assertThat(only.summary()).containsKey("floe.rebuild-of-snapshot");
        assertThat(((HasTableOperations) catalog.loadTable(EVENTS))
                        .operations()
                        .current()
                        .uuid())
                .isEqualTo(uuid);
        assertThat(catalog.loadTable(EVENTS).properties()).containsEntry("write.parquet.compression-codec", "zstd");
        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
    }

    @Test
    void heldHandleAppendsAndReadsAfterTheRebuild() {
        Table held = eventsWithTinyAppends(5, 4);

        compactor().compactTable(catalog, EVENTS, Prune.NONE);

        TestTables.append(held, TestTables.simpleRows(1000, 3));
        assertThat(TestTables.read(held)).hasSize(23);
        Table fresh = catalog.loadTableUncached(EVENTS);
        assertThat(fresh.snapshots()).hasSize(2);
        assertThat(TestTables.fingerprints(fresh))
                .isEqualTo(TestTables.fingerprints(
                        concat(TestTables.simpleRows(0, 20), TestTables.simpleRows(1000, 3)), fresh.schema()));
    }

    @Test
    void appendsDuringTheStreamAreCarriedOver() {
        Table table = eventsWithTinyAppends(4, 5);
        Table host = catalog.loadTableUncached(EVENTS);
        CompactionProbe appendWhileStreaming = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                TestTables.append(host, TestTables.simpleRows(500, 7));
            }
        };
        Compactor compactor = new Compactor(
                settings, new WriterGate(), new HandleRegistry(0), appendWhileStreaming, Clock.systemUTC());

        CompactReport report = compactor.compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.carriedFiles()).isEqualTo(1);
        assertThat(report.carriedRows()).isEqualTo(7);
        Table rebuilt = catalog.loadTable(EVENTS);
        assertThat(rebuilt.snapshots()).hasSize(1);
        assertThat(TestTables.fingerprints(rebuilt))
                .isEqualTo(TestTables.fingerprints(
                        concat(TestTables.simpleRows(0, 20), TestTables.simpleRows(500, 7)), rebuilt.schema()));
    }

    @Test
    void appendsOnBothSidesOfTheGateAreCarriedOver() {
        eventsWithTinyAppends(4, 5);
        Table host = catalog.loadTableUncached(EVENTS);
        CompactionProbe appendEarlyAndLate = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                TestTables.append(host, TestTables.simpleRows(500, 7)); // seen before the gate
            }
            if (step == CompactionStep.MANIFEST_WRITTEN) {
                TestTables.append(host, TestTables.simpleRows(600, 4)); // seen only under the gate
            }
        };
        Compactor compactor =
                new Compactor(settings, new WriterGate(), new HandleRegistry(0), appendEarlyAndLate, Clock.systemUTC());

        CompactReport report = compactor.compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.carriedFiles()).isEqualTo(2);
        assertThat(report.carriedRows()).isEqualTo(11);
        Table rebuilt = catalog.loadTableUncached(EVENTS);
        assertThat(rebuilt.snapshots()).hasSize(1);
        List<Record> expected = concat(
                concat(TestTables.simpleRows(0, 20), TestTables.simpleRows(500, 7)), TestTables.simpleRows(600, 4));
        assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(TestTables.fingerprints(expected, rebuilt.schema()));
        new Reclaimer(catalog).runAll();
        java.util.Set<String> referenced = TestTables.localPaths(
                ReachableFiles.of(((HasTableOperations) rebuilt).operations().current(), rebuilt.io()));
        assertThat(TestTables.filesOnDisk(root)).isEqualTo(referenced);
    }

    @Test
    void aFileDeletedWholeDuringTheStreamIsRebasedWithoutStartingAgain() {
        Table table = eventsWithTinyAppends(4, 5);
        Table host = catalog.loadTableUncached(EVENTS);
        List<String> expected = new java.util.ArrayList<>();
        CompactionProbe deleteOnce = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN && expected.isEmpty()) {
                DataFile first = dataFiles(host).get(0);
                host.newDelete().deleteFile(first).commit();
                expected.addAll(TestTables.fingerprints(catalog.loadTableUncached(EVENTS)));
            }
        };
        Compactor compactor =
                new Compactor(settings, new WriterGate(), new HandleRegistry(0), deleteOnce, Clock.systemUTC());

        CompactReport report = compactor.compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.attempts()).isEqualTo(1);
        Table rebuilt = catalog.loadTable(EVENTS);
        assertThat(expected).hasSize(15);
        assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(expected);
        assertThat(rebuilt.snapshots()).hasSize(1);
        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
    }

    @Test
    void tableBusyAfterTheLastAttemptLeavesLiveUntouched() {
        eventsWithTinyAppends(3, 5);
        Table host = catalog.loadTableUncached(EVENTS);
        CompactionProbe alwaysRace = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                host.updateProperties()
                        .set("touched", Long.toString(System.nanoTime()))
                        .commit();
            }
        };
        Compactor compactor = new Compactor(
                settings.with(s -> s.maxAttempts = 2),
                new WriterGate(),
                new HandleRegistry(0),
                alwaysRace,
                Clock.systemUTC());
        Table live = catalog.loadTable(EVENTS);
        List<String> before = TestTables.fingerprints(live);
        int snapshots =
                ((HasTableOperations) live).operations().current().snapshots().size();

        assertThatThrownBy(() -> compactor.compactTable(catalog, EVENTS, Prune.NONE))
                .isInstanceOf(TableBusyException.class)
                .hasMessageContaining("busy");

        Table after = catalog.loadTableUncached(EVENTS);
        assertThat(after.snapshots()).hasSize(snapshots);
        assertThat(TestTables.fingerprints(after)).isEqualTo(before);
        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
    }

    @Test
    void reclaimDeletesRetiredFilesAndKeepsEveryLiveFile() {
        eventsWithTinyAppends(10, 3);

        CompactReport report = compactor().compactTable(catalog, EVENTS, Prune.NONE);
        assertThat(report.retiredFiles()).isGreaterThan(10);
        Reclaimer.Result result = new Reclaimer(catalog).runDue(Instant.now());

        assertThat(result.jobs()).isEqualTo(1);
        assertThat(result.filesDeleted()).isEqualTo(report.retiredFiles());
        Table live = catalog.loadTable(EVENTS);
        java.util.Set<String> referenced = TestTables.localPaths(
                ReachableFiles.of(((HasTableOperations) live).operations().current(), live.io()));
        assertThat(TestTables.filesOnDisk(root)).isEqualTo(referenced);
        assertThat(TestTables.read(live)).hasSize(30);
        assertThat(new Reclaimer(catalog).pending()).isEmpty();
    }

    @Test
    void pendingReclaimJobSurvivesCloseAndReopen() throws Exception {
        eventsWithTinyAppends(5, 3);
        Instant now = Instant.now();
        Compactor compactor = new Compactor(
                settings.with(s -> s.reclaimGrace = Duration.ofMinutes(10)),
                new WriterGate(),
                new HandleRegistry(0),
                CompactionProbe.NONE,
                Clock.fixed(now, java.time.ZoneOffset.UTC));
        CompactReport report = compactor.compactTable(catalog, EVENTS, Prune.NONE);
        java.util.Set<String> onDiskBeforeReclaim = TestTables.filesOnDisk(root);

        assertThat(new Reclaimer(catalog)
                        .runDue(now.plus(Duration.ofMinutes(9)))
                        .jobs())
                .isZero();
        catalog.close();
        catalog = TestTables.catalog(root);

        List<ReclaimJob> pending = new Reclaimer(catalog).pending();
        assertThat(pending).extracting(ReclaimJob::id).containsExactly(report.reclaimJob());
        assertThat(TestTables.filesOnDisk(root)).isEqualTo(onDiskBeforeReclaim);
        Reclaimer.Result result = new Reclaimer(catalog).runDue(now.plus(Duration.ofMinutes(11)));
        assertThat(result.filesDeleted()).isEqualTo(report.retiredFiles());
        assertThat(TestTables.read(catalog.loadTable(EVENTS))).hasSize(15);
    }

    @Test
    void secondCompactionRetiresTheFirstRebuild() {
        Table held = eventsWithTinyAppends(5, 2);
        compactor().compactTable(catalog, EVENTS, Prune.NONE);
        TestTables.append(held, TestTables.simpleRows(100, 2));
        compactor().compactTable(catalog, EVENTS, Prune.NONE);
        new Reclaimer(catalog).runAll();

        Table live = catalog.loadTable(EVENTS);
        assertThat(live.snapshots()).hasSize(1);
        assertThat(TestTables.read(live)).hasSize(12);
        java.util.Set<String> referenced = TestTables.localPaths(
                ReachableFiles.of(((HasTableOperations) live).operations().current(), live.io()));
        assertThat(TestTables.filesOnDisk(root)).isEqualTo(referenced);
    }

    @Test
    void noScratchTableIsLeftAndRecoveryFindsNothing() {
        eventsWithTinyAppends(3, 3);
        compactor().compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
        Recovery.Result recovered = Recovery.run(catalog, Instant.now());
        assertThat(recovered.scratchTablesDiscarded()).isEmpty();
    }

    @Test
    void recoveryDiscardsAnUnfinishedRebuild() {
        eventsWithTinyAppends(4, 3);
        java.util.Set<String> before = TestTables.filesOnDisk(root);
        Table live = catalog.loadTable(EVENTS);
        List<String> content = TestTables.fingerprints(live);
        // a rebuild that died after its scratch commit: journal and scratch table left behind
        TableIdentifier scratchId = ScratchTable.nameFor(EVENTS);
        RebuildJournal journal = new RebuildJournal(new MapDbRebuildCatalog(catalog).state(), EVENTS, scratchId);
        journal.begin();
        Table scratch = ScratchTable.create(
                catalog,
                ((HasTableOperations) live).operations().current(),
                (org.apache.iceberg.BaseMetastoreTableOperations) ((HasTableOperations) live).operations(),
                java.util.Map.of(),
                journal);
        DataFile written = TestTables.writeFile(scratch, TestTables.simpleRows(0, 12));
        journal.fileStarted(written.location());
        scratch.newFastAppend().appendFile(written).commit();
        assertThat(catalog.listTables(Namespace.of("db"))).contains(scratchId);

        Recovery.Result recovered = Recovery.run(catalog, Instant.now());

        assertThat(recovered.scratchTablesDiscarded()).containsExactly(scratchId);
        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
        assertThat(TestTables.filesOnDisk(root)).isEqualTo(before);
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(content);
        assertThat(catalog.durableEntries(RebuildJournal.SECTION)).isEmpty();
    }

    @Test
    void aTableThatDoesNotOwnItsFilesIsRefusedAndLeftAsItIs() {
        // gc.enabled=false: a snapshot of another table, or one registered over files it does not own;
        // a rebuild would delete the files it retires
        Table table = eventsWithTinyAppends(4, 2);
        table.updateProperties()
                .set(org.apache.iceberg.TableProperties.GC_ENABLED, "false")
                .commit();
        String before = catalog.metadataLocation(EVENTS);
        java.util.Set<String> files = TestTables.filesOnDisk(root);

        assertThatThrownBy(() -> compactor().compactTable(catalog, EVENTS, Prune.NONE))
                .isInstanceOf(RebuildException.class)
                .hasMessageContaining("gc.enabled=false");

        assertThat(catalog.metadataLocation(EVENTS)).isEqualTo(before);
        assertThat(TestTables.filesOnDisk(root)).isEqualTo(files);
        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
    }

    @Test
    void emptyTableIsRefused() {
        catalog.createTable(EVENTS, TestTables.SIMPLE);
        assertThatThrownBy(() -> compactor().compactTable(catalog, EVENTS, Prune.NONE))
                .isInstanceOf(RebuildException.class)
                .hasMessageContaining("no snapshot");
    }

    @Test
    void missingTableIsNamed() {
        assertThatThrownBy(() -> compactor().compactTable(catalog, TableIdentifier.of("db", "nope"), Prune.NONE))
                .isInstanceOf(NoSuchTableException.class)
                .hasMessageContaining("db.nope");
    }

    @Test
    void schemaChangedSinceTheLastAppendIsReadByFieldId() {
        Table table = eventsWithTinyAppends(4, 3);
        table.updateSchema()
                .moveBefore("score", "name")
                .addColumn("extra", org.apache.iceberg.types.Types.IntegerType.get())
                .commit();
        List<String> before = TestTables.fingerprints(catalog.loadTableUncached(EVENTS));

        compactor().compactTable(catalog, EVENTS, Prune.NONE);

        Table rebuilt = catalog.loadTableUncached(EVENTS);
        assertThat(rebuilt.schema().columns())
                .extracting(f -> f.name())
                .containsExactly("id", "score", "name", "extra");
        assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(before);
    }

    @Test
    void recoveryNeverJudgesATableByItsName() {
        TableIdentifier lookalike = TableIdentifier.of("db", "metrics__c2024");
        Table table = catalog.createTable(lookalike, TestTables.SIMPLE);
        TestTables.append(table, TestTables.simpleRows(0, 3));

        Recovery.run(catalog, Instant.now());

        assertThat(TestTables.read(catalog.loadTableUncached(lookalike))).hasSize(3);
    }

    @Test
    void reclaimWaitsWhileTheTableIsGoneAndKeepsCarriedFiles() {
        eventsWithTinyAppends(4, 3);
        Table host = catalog.loadTableUncached(EVENTS);
        CompactionProbe appendThenDieAfterSwap = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                TestTables.append(host, TestTables.simpleRows(100, 2)); // carried into the rebuild
            }
            if (step == CompactionStep.SWAPPED) {
                throw new IllegalStateException("died before the reclaim job was expanded");
            }
        };
        Compactor compactor = new Compactor(
                settings, new WriterGate(), new HandleRegistry(0), appendThenDieAfterSwap, Clock.systemUTC());
        assertThatThrownBy(() -> compactor.compactTable(catalog, EVENTS, Prune.NONE))
                .hasMessageContaining("died");
        TableIdentifier renamed = TableIdentifier.of("db", "events_renamed");
        catalog.renameTable(EVENTS, renamed);

        Reclaimer.Result waiting = new Reclaimer(catalog).runAll();

        assertThat(waiting.filesDeleted()).isZero();
        assertThat(TestTables.read(catalog.loadTableUncached(renamed))).hasSize(14);
        catalog.renameTable(renamed, EVENTS);
        assertThat(new Reclaimer(catalog).runAll().filesDeleted()).isPositive();
        assertThat(TestTables.read(catalog.loadTableUncached(EVENTS))).hasSize(14);
    }

    @Test
    void tagCreatedDuringTheStreamIsKept() {
        eventsWithTinyAppends(3, 3);
        Table host = catalog.loadTableUncached(EVENTS);
        CompactionProbe tagWhileStreaming = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN && host.refs().size() == 1) {
                host.manageSnapshots()
                        .createTag("audit", host.currentSnapshot().snapshotId())
                        .commit();
            }
        };
        Compactor compactor =
                new Compactor(settings, new WriterGate(), new HandleRegistry(0), tagWhileStreaming, Clock.systemUTC());

        assertThatThrownBy(() -> compactor.compactTable(catalog, EVENTS, Prune.NONE))
                .isInstanceOf(RebuildException.class)
                .hasMessageContaining("'audit'");

        assertThat(catalog.loadTableUncached(EVENTS).refs()).containsKey("audit");
    }

    static List<DataFile> dataFiles(Table table) {
        List<DataFile> files = new ArrayList<>();
        table.refresh();
        try (var tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return files;
    }

    static List<Record> concat(List<Record> a, List<Record> b) {
        List<Record> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
