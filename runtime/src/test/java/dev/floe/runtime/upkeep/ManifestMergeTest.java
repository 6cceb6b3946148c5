package dev.floe.runtime.upkeep;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.deltas.CatchUp;
import dev.floe.runtime.guard.Guard;
import dev.floe.runtime.rebuild.CompactReport;
import dev.floe.runtime.rebuild.CompactionProbe;
import dev.floe.runtime.rebuild.CompactionStep;
import dev.floe.runtime.rebuild.Compactor;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Between rebuilds, the guard merges the one-file manifests of a table's fast appends. */
class ManifestMergeTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final TableKey KEY = TableKey.embedded(EVENTS);

    @TempDir
    Path root;

    MapDbCatalog catalog;
    Guard guard;

    @BeforeEach
    void open() {
        catalog = TestTables.catalog(root);
        catalog.createNamespace(Namespace.of("db"));
    }

    @AfterEach
    void close() throws Exception {
        if (guard != null) {
            guard.close();
        }
        catalog.close();
    }

    private void guardWith(long triggerSnapshots, int mergeManifests) {
        guard = new Guard(
                TestTables.guardSettings(
                                triggerSnapshots,
                                RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO),
                                () -> Prune.NONE,
                                false)
                        .withMergeManifests(mergeManifests),
                java.time.Clock.systemUTC(),
                "");
    }

    /** Commits {@code n} guarded fast appends of 2 rows each, from {@code first} on, each left to settle. */
    private void append(Table table, int first, int n) throws InterruptedException {
        for (int i = first; i < first + n; i++) {
            long id = i * 2L;
            TestTables.guardedCommit(guard, table, () -> TestTables.append(table, TestTables.simpleRows(id, 2)));
            guard.awaitIdle(Duration.ofMinutes(1));
        }
    }

    @Test
    void theAppendsManifestsAreMergedEveryRowStaysAndEachFileKeepsItsSequenceNumber() throws Exception {
        guardWith(30, 10);
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        guard.tableLoaded(EVENTS, table);

        append(table, 0, 25);

        Table live = catalog.loadTableUncached(EVENTS);
        // 10 appends merged into one, then that one and 10 more into one, then 5 more on their own
        assertThat(live.currentSnapshot().dataManifests(live.io())).hasSize(6);
        assertThat(live.snapshots()).hasSize(27);
        List<Snapshot> merges = java.util.stream.StreamSupport.stream(
                        live.snapshots().spliterator(), false)
                .filter(s -> DataOperations.REPLACE.equals(s.operation()))
                .toList();
        assertThat(merges)
                .extracting(s -> s.summary().get(ManifestMerge.MERGED_PROPERTY))
                .containsExactly("10", "11");
        assertThat(guard.metrics(EVENTS).getManifestMerges()).isEqualTo(2);
        assertThat(TestTables.fingerprints(live))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 50), TestTables.SIMPLE));
        // every file is listed with the data sequence number of the append that added it
        Map<String, Long> sequenceOf = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks = live.newScan().planFiles()) {
            tasks.forEach(
                    task -> sequenceOf.put(task.file().location(), task.file().dataSequenceNumber()));
        }
        assertThat(sequenceOf).hasSize(25);
        for (Snapshot snapshot : live.snapshots()) {
            if (DataOperations.APPEND.equals(snapshot.operation())) {
                for (DataFile added : snapshot.addedDataFiles(live.io())) {
                    assertThat(sequenceOf).containsEntry(added.location(), snapshot.sequenceNumber());
                }
            }
        }
        // the host's handle goes on committing, and its reads see the merged snapshot once it refreshes
        append(table, 25, 3);
        Table rebuilt = catalog.loadTableUncached(EVENTS);
        assertThat(guard.metrics(EVENTS).getRebuilds())
                .as("28 appends and 2 merges are 30 snapshots")
                .isEqualTo(1);
        TestTables.rebuiltSnapshot(rebuilt);
        assertThat(TestTables.fingerprints(rebuilt))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 56), TestTables.SIMPLE));
        assertThat(guard.getErrors()).isZero();
    }

    /**
     * With the gate held by this thread, five guarded appends (a merge of 5 is then due), until the
     * merge waits at the gate.
     */
    private void appendUntilAMergeWaitsAtTheGate(Table table) {
        for (int i = 0; i < 5; i++) {
            long id = i * 2L;
            TestTables.guardedCommit(guard, table, () -> TestTables.append(table, TestTables.simpleRows(id, 2)));
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (guard.gate().waiting(KEY) == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(guard.gate().waiting(KEY)).as("the merge waits at the gate").isEqualTo(1);
    }

    @Test
    void theMergeCommitsOnlyOnceItHoldsTheTablesGate() throws Exception {
        guardWith(1000, 5);
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        guard.gate().enter(KEY); // a host operation in progress holds the gate
        try {
            appendUntilAMergeWaitsAtTheGate(table);
            Table live = catalog.loadTableUncached(EVENTS);
            assertThat(live.snapshots()).hasSize(5);
            assertThat(live.currentSnapshot().dataManifests(live.io())).hasSize(5);
        } finally {
            guard.gate().exit(KEY);
        }
        guard.awaitIdle(Duration.ofMinutes(1));

        Table live = catalog.loadTableUncached(EVENTS);
        assertThat(live.snapshots()).hasSize(6);
        assertThat(live.currentSnapshot().dataManifests(live.io())).hasSize(1);
        assertThat(TestTables.fingerprints(live))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 10), TestTables.SIMPLE));
        // the host's handle goes on committing on the merged table
        long id = 10;
        TestTables.guardedCommit(guard, table, () -> TestTables.append(table, TestTables.simpleRows(id, 2)));
        assertThat(TestTables.fingerprints(catalog.loadTableUncached(EVENTS)))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 12), TestTables.SIMPLE));
    }

    @Test
    void aMergeWhoseManifestsAnotherCommitReplacedIsDroppedAndLeavesNoFileBehind() throws Exception {
        guardWith(1000, 5);
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        guard.gate().enter(KEY);
        try {
            appendUntilAMergeWaitsAtTheGate(table);
            // meanwhile the host rewrites the manifests itself: the ones floe chose are gone
            table.rewriteManifests().clusterBy(file -> "host").commit();
        } finally {
            guard.gate().exit(KEY);
        }
        guard.awaitIdle(Duration.ofMinutes(1));

        Table live = catalog.loadTableUncached(EVENTS);
        assertThat(live.snapshots())
                .as("5 appends and the host's rewrite, no merge of floe's")
                .hasSize(6);
        assertThat(guard.metrics(EVENTS).getManifestMerges()).isZero();
        assertThat(guard.getErrors()).isZero();
        // what floe wrote before the gate is deleted: every Avro file in metadata/ is referenced
        java.util.Set<String> referenced = new java.util.HashSet<>();
        for (Snapshot snapshot : live.snapshots()) {
            referenced.add(Path.of(snapshot.manifestListLocation().replace("file:", ""))
                    .toString());
            snapshot.allManifests(live.io())
                    .forEach(m -> referenced.add(
                            Path.of(m.path().replace("file:", "")).toString()));
        }
        Path metadata = Path.of(live.location().replace("file:", "")).resolve("metadata");
        try (var files = java.nio.file.Files.list(metadata)) {
            assertThat(files.map(Path::toString).filter(f -> f.endsWith(".avro")))
                    .containsExactlyInAnyOrderElementsOf(referenced);
        }
        assertThat(TestTables.fingerprints(live))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 10), TestTables.SIMPLE));
    }

    @Test
    void aTableFloeDoesNotRebuildIsNotMergedEither() throws Exception {
        guardWith(1000, 4);
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        TestTables.append(table, TestTables.simpleRows(0, 1));
        table.manageSnapshots()
                .createTag("audited", table.currentSnapshot().snapshotId())
                .commit();
        append(table, 1, 8);
        Table live = catalog.loadTableUncached(EVENTS);
        assertThat(live.currentSnapshot().dataManifests(live.io())).hasSize(9);
        assertThat(guard.metrics(EVENTS).getManifestMerges()).isZero();
    }

    @Test
    void aRebuildRacedByAnotherWritersManifestRewriteCarriesOnInOneAttempt() throws Exception {
        Table host = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int i = 0; i < 6; i++) {
            TestTables.append(host, TestTables.simpleRows(i * 2L, 2));
        }
        java.util.concurrent.atomic.AtomicBoolean raced = new java.util.concurrent.atomic.AtomicBoolean();
        // once the rows are written, another writer appends and then rewrites every manifest (no file moves)
        CompactionProbe race = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN && raced.compareAndSet(false, true)) {
                TestTables.append(host, TestTables.simpleRows(12, 2));
                host.rewriteManifests().clusterBy(file -> "all").commit();
            }
        };
        Compactor compactor = new Compactor(
                RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO),
                new WriterGate(),
                new HandleRegistry(16),
                race,
                java.time.Clock.systemUTC());

        CompactReport report = compactor.compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(raced).isTrue();
        assertThat(report.attempts())
                .as("the manifest rewrite is nothing to start again for")
                .isEqualTo(1);
        Table live = catalog.loadTableUncached(EVENTS);
        TestTables.rebuiltSnapshot(live);
        assertThat(TestTables.fingerprints(live))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 14), TestTables.SIMPLE));
    }

    @Test
    void aReplaceThatMovesFilesIsNotTakenForAManifestRewrite() throws Exception {
        Table host = catalog.createTable(EVENTS, TestTables.SIMPLE);
        TestTables.append(host, TestTables.simpleRows(0, 2));
        TestTables.append(host, TestTables.simpleRows(2, 2));
        host.rewriteManifests().clusterBy(file -> "all").commit();
        assertThat(CatchUp.rewritesOnlyManifests(host.currentSnapshot())).isTrue();
        List<DataFile> files = new java.util.ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = host.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        }
        host.newRewrite()
                .deleteFile(files.get(0))
                .deleteFile(files.get(1))
                .addFile(TestTables.writeFile(host, TestTables.simpleRows(0, 4)))
                .commit();
        assertThat(host.currentSnapshot().operation()).isEqualTo(DataOperations.REPLACE);
        assertThat(CatchUp.rewritesOnlyManifests(host.currentSnapshot())).isFalse();
    }

    @Test
    void zeroNeverMergesAndTooFewSmallManifestsAreLeftAlone() throws Exception {
        guardWith(1000, 0);
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(table, 0, 12);
        Table live = catalog.loadTableUncached(EVENTS);
        assertThat(live.currentSnapshot().dataManifests(live.io())).hasSize(12);
        assertThat(guard.metrics(EVENTS).getManifestMerges()).isZero();

        // a host's merging appends leave few manifests: the check finds too few and commits nothing
        guard.close();
        guardWith(1000, 4);
        Table other = catalog.createTable(
                TableIdentifier.of("db", "merged"),
                TestTables.SIMPLE,
                org.apache.iceberg.PartitionSpec.unpartitioned(),
                Map.of(org.apache.iceberg.TableProperties.MANIFEST_MIN_MERGE_COUNT, "2"));
        for (int i = 0; i < 8; i++) {
            long id = i;
            TestTables.guardedCommit(
                    guard,
                    other,
                    () -> other.newAppend()
                            .appendFile(TestTables.writeFile(other, TestTables.simpleRows(id, 1)))
                            .commit());
            guard.awaitIdle(Duration.ofMinutes(1));
        }
        Table merged = catalog.loadTableUncached(TableIdentifier.of("db", "merged"));
        assertThat(merged.snapshots()).as("no replace snapshot").hasSize(8);
        assertThat(guard.metrics(TableIdentifier.of("db", "merged")).getManifestMerges())
                .isZero();
    }
}
