package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.FloeStateFile;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.install.ScratchTable;
import dev.floe.runtime.seam.FloeState;
import dev.floe.runtime.seam.IcebergRebuildCatalog;
import dev.floe.runtime.seam.ReachableFiles;
import dev.floe.runtime.seam.RebuildJournal;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.testing.RowDeltas;
import dev.floe.runtime.testing.TestTables;
import dev.floe.runtime.upkeep.Reclaimer;
import dev.floe.runtime.upkeep.Recovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole rebuild, in place, on Iceberg's JdbcCatalog over a real SQLite file: appends on both
 * sides of the gate are carried, a commit from another catalog instance that lands before the
 * install makes the attempt start again and is kept, retired files are reclaimed by reference, and
 * a crashed rebuild's files are discarded only where the live table does not reference them.
 */
class InPlaceRebuildTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @TempDir
    Path root;

    FloeStateFile stateFile;
    JdbcCatalog jdbc;
    IcebergRebuildCatalog catalog;
    RebuildSettings settings = RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO);

    @BeforeEach
    void open() {
        stateFile = FloeStateFile.open(root.resolve("floe-state.db"));
        jdbc = jdbc();
        jdbc.createNamespace(Namespace.of("db"));
        catalog = new IcebergRebuildCatalog(jdbc, FloeState.of(stateFile));
    }

    @AfterEach
    void close() {
        jdbc.close();
        stateFile.close();
    }

    /** Another instance on the same SQLite file, as another process would have. */
    private JdbcCatalog jdbc() {
        return TestTables.sqliteJdbc(root, "ingest");
    }

    private Table tinyAppends(int appends, int rows) {
        Table table = jdbc.createTable(EVENTS, TestTables.SIMPLE);
        for (int i = 0; i < appends; i++) {
            TestTables.append(table, TestTables.simpleRows((long) i * rows, rows));
        }
        return table;
    }

    private Set<String> dataFilesOnDisk() throws IOException {
        try (Stream<Path> files = Files.walk(root.resolve("warehouse"))) {
            return files.map(Path::toString).filter(f -> f.endsWith(".parquet")).collect(Collectors.toSet());
        }
    }

    @Test
    void rowDeltasBeforeTheGateAndFromAnotherInstanceUnderItAreRebasedInPlace() throws Exception {
        Table table = jdbc.buildTable(EVENTS, TestTables.SIMPLE)
                .withProperty(org.apache.iceberg.TableProperties.FORMAT_VERSION, "2")
                .create();
        List<org.apache.iceberg.DataFile> files = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            org.apache.iceberg.DataFile file = TestTables.writeFile(table, TestTables.simpleRows(i * 10L, 10));
            table.newFastAppend().appendFile(file).commit();
            files.add(file);
        }
        Table host = jdbc.loadTable(EVENTS);
        boolean[] once = {false, false};
        CompactionProbe deltas = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN && !once[0]) {
                once[0] = true; // an upsert of id 3
                host.newRowDelta()
                        .addRows(TestTables.writeFile(host, List.of(TestTables.simpleRow(3))))
                        .addDeletes(RowDeltas.equalityDeletes(host, 3))
                        .commit();
            }
            if (step == CompactionStep.CAUGHT_UP && !once[1]) {
                once[1] = true; // past this process's gate: the install is refused, and rebased
                try (JdbcCatalog other = jdbc()) {
                    Table elsewhere = other.loadTable(EVENTS);
                    elsewhere
                            .newRowDelta()
                            .addDeletes(RowDeltas.positionDeletes(elsewhere, files.get(2), 4))
                            .commit();
                }
            }
        };

        CompactReport report = new Compactor(
                        settings, new WriterGate(), new HandleRegistry(0), deltas, Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.attempts()).isEqualTo(1);
        try (JdbcCatalog reader = jdbc()) {
            Table rebuilt = reader.loadTable(EVENTS);
            TestTables.rebuiltSnapshot(rebuilt);
            List<Record> expected = new java.util.ArrayList<>(TestTables.simpleRows(0, 40));
            expected.removeIf(row -> (Long) row.getField("id") == 24);
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(TestTables.fingerprints(expected, rebuilt.schema()));
        }
    }

    @Test
    void appendsOnBothSidesOfTheGateAreCarriedAndRetiredFilesReclaimedByReference() throws Exception {
        tinyAppends(10, 5);
        Table host = jdbc.loadTable(EVENTS);
        CompactionProbe appendEarlyAndLate = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                TestTables.append(host, TestTables.simpleRows(500, 7));
            }
            if (step == CompactionStep.MANIFEST_WRITTEN) {
                TestTables.append(host, TestTables.simpleRows(600, 4));
            }
        };

        // no history kept: what the rebuild retires is what the reclaim deletes
        CompactReport report = new Compactor(
                        settings.with(s -> s.historyKeep = Duration.ZERO),
                        new WriterGate(),
                        new HandleRegistry(0),
                        appendEarlyAndLate,
                        Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.carriedFiles()).isEqualTo(2);
        try (JdbcCatalog reader = jdbc()) {
            Table rebuilt = reader.loadTable(EVENTS);
            TestTables.rebuiltSnapshot(rebuilt);
            List<Record> expected = new java.util.ArrayList<>(TestTables.simpleRows(0, 50));
            expected.addAll(TestTables.simpleRows(500, 7));
            expected.addAll(TestTables.simpleRows(600, 4));
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(TestTables.fingerprints(expected, rebuilt.schema()));
            assertThat(stateFile.entries(RebuildJournal.SECTION))
                    .as("the journal is cleared")
                    .isEmpty();
            assertThat(stateFile.entries(ReclaimJob.SECTION)).hasSize(1);

            Reclaimer.Result reclaimed = new Reclaimer(catalog).runDue(Instant.now());

            assertThat(reclaimed.jobs()).isEqualTo(1);
            Set<String> live = TestTables.localPaths(ReachableFiles.of(
                    ((HasTableOperations) rebuilt).operations().refresh(), rebuilt.io()));
            assertThat(dataFilesOnDisk())
                    .isEqualTo(live.stream().filter(f -> f.endsWith(".parquet")).collect(Collectors.toSet()));
            assertThat(dataFilesOnDisk()).hasSize(3); // the rebuilt file and the two carried ones
            assertThat(TestTables.fingerprints(reader.loadTable(EVENTS)))
                    .isEqualTo(TestTables.fingerprints(expected, rebuilt.schema()));
        }
    }

    @Test
    void aKeptFileAndItsPositionDeletesStayAsTheyAreInPlace() throws Exception {
        Table table = jdbc.buildTable(EVENTS, TestTables.SIMPLE)
                .withProperty(org.apache.iceberg.TableProperties.FORMAT_VERSION, "2")
                .create();
        org.apache.iceberg.DataFile kept = TestTables.writeFile(table, TestTables.simpleRows(0, 10));
        table.newFastAppend().appendFile(kept).commit();
        TestTables.append(table, TestTables.simpleRows(10, 10));
        org.apache.iceberg.data.GenericAppenderFactory factory = new org.apache.iceberg.data.GenericAppenderFactory(
                table.schema(), table.spec(), new int[] {1}, table.schema().select("id"), null);
        org.apache.iceberg.deletes.PositionDeleteWriter<Record> positions = factory.newPosDeleteWriter(
                org.apache.iceberg.io.OutputFileFactory.builderFor(table, 1, 1)
                        .format(org.apache.iceberg.FileFormat.PARQUET)
                        .build()
                        .newOutputFile(),
                org.apache.iceberg.FileFormat.PARQUET,
                null);
        try (positions) {
            positions.write(
                    org.apache.iceberg.deletes.PositionDelete.<Record>create().set(kept.location(), 4, null));
        }
        table.newRowDelta().addDeletes(positions.toDeleteFile()).commit();
        List<String> before = TestTables.fingerprints(table);

        // every file settled: only the deletes decide, and one of ten rows is below the ratio
        new Compactor(settings.with(s -> s.targetFileBytes = 1)).compactTable(catalog, EVENTS, Prune.NONE);

        try (JdbcCatalog reader = jdbc()) {
            Table rebuilt = reader.loadTable(EVENTS);
            TestTables.rebuiltSnapshot(rebuilt);
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(before).hasSize(19);
            java.util.Map<String, Integer> deletesPerFile = new java.util.HashMap<>();
            try (var tasks = rebuilt.newScan().planFiles()) {
                tasks.forEach(task -> deletesPerFile.put(
                        task.file().location(), task.deletes().size()));
            }
            assertThat(deletesPerFile).containsEntry(kept.location(), 1).hasSize(2);
            new Reclaimer(catalog).runDue(Instant.now());
            Set<String> live = TestTables.localPaths(ReachableFiles.of(
                    ((HasTableOperations) rebuilt).operations().refresh(), rebuilt.io()));
            assertThat(dataFilesOnDisk())
                    .as("the kept file and its deletes are live; nothing else of the old table is left")
                    .isEqualTo(live.stream().filter(f -> f.endsWith(".parquet")).collect(Collectors.toSet()))
                    .contains(kept.location().replace("file:", ""));
            assertThat(TestTables.fingerprints(reader.loadTable(EVENTS))).isEqualTo(before);
        }
    }

    @Test
    void anAppendFromAnotherProcessBeforeTheInstallIsCarriedAndInstalledAgainWithoutStreamingAgain() {
        tinyAppends(6, 5);
        int[] installs = {0};
        CompactionProbe otherProcessAppendsUnderTheGate = (step, id) -> {
            // the gate covers this process only: another catalog instance commits while it is held
            if (step == CompactionStep.SCRATCH_COMMITTED && installs[0]++ == 0) {
                JdbcCatalog other = jdbc();
                TestTables.append(other.loadTable(EVENTS), TestTables.simpleRows(900, 3));
                other.close();
            }
        };

        CompactReport report = new Compactor(
                        settings,
                        new WriterGate(),
                        new HandleRegistry(0),
                        otherProcessAppendsUnderTheGate,
                        Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.attempts()).as("one stream").isEqualTo(1);
        assertThat(installs[0])
                .as("the refused install, then the one that landed")
                .isEqualTo(2);
        assertThat(report.carriedFiles()).isEqualTo(1);
        Table rebuilt = jdbc.loadTable(EVENTS);
        TestTables.rebuiltSnapshot(rebuilt);
        List<Long> ids = TestTables.read(rebuilt).stream()
                .map(r -> (Long) r.getField("id"))
                .sorted()
                .collect(Collectors.toList());
        assertThat(ids).hasSize(33).doesNotHaveDuplicates().contains(900L, 901L, 902L);
        assertThat(stateFile.entries(ReclaimJob.SECTION))
                .as("the refused install's job is gone")
                .hasSize(1);
        assertNothingButOneMetadataFileUnreferencedOnceReclaimed(rebuilt);
    }

    @Test
    void aTableAnotherProcessAppendsToBeforeEveryInstallStartsTheAttemptAgainAfterABoundedNumber() {
        tinyAppends(4, 5);
        int[] installs = {0};
        CompactionProbe appendsBeforeEachOfTheFirstInstalls = (step, id) -> {
            if (step == CompactionStep.SCRATCH_COMMITTED && installs[0] < RebuildAttempt.INSTALL_ROUNDS) {
                JdbcCatalog other = jdbc();
                TestTables.append(other.loadTable(EVENTS), TestTables.simpleRows(900 + 10L * installs[0], 2));
                other.close();
            }
            if (step == CompactionStep.SCRATCH_COMMITTED) {
                installs[0]++;
            }
        };

        CompactReport report = new Compactor(
                        settings,
                        new WriterGate(),
                        new HandleRegistry(0),
                        appendsBeforeEachOfTheFirstInstalls,
                        Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.attempts()).isEqualTo(2);
        assertThat(installs[0]).isEqualTo(RebuildAttempt.INSTALL_ROUNDS + 1);
        List<Long> ids = TestTables.read(jdbc.loadTable(EVENTS)).stream()
                .map(r -> (Long) r.getField("id"))
                .collect(Collectors.toList());
        assertThat(ids).hasSize(20 + 2 * RebuildAttempt.INSTALL_ROUNDS).doesNotHaveDuplicates();
    }

    @Test
    void aCommitFromAnotherProcessBeforeTheInstallStartsTheAttemptAgainAndIsKept() {
        tinyAppends(6, 5);
        int[] raced = {0};
        CompactionProbe otherProcessCommitsUnderTheGate = (step, id) -> {
            // not an append: the rebuilt version cannot carry it, so the attempt starts again from it
            if (step == CompactionStep.SCRATCH_COMMITTED && raced[0]++ == 0) {
                JdbcCatalog other = jdbc();
                other.loadTable(EVENTS).updateProperties().set("owner", "other").commit();
                other.close();
            }
        };

        CompactReport report = new Compactor(
                        settings,
                        new WriterGate(),
                        new HandleRegistry(0),
                        otherProcessCommitsUnderTheGate,
                        Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.attempts()).isEqualTo(2);
        Table rebuilt = jdbc.loadTable(EVENTS);
        TestTables.rebuiltSnapshot(rebuilt);
        assertThat(rebuilt.properties()).containsEntry("owner", "other");
        assertThat(TestTables.read(rebuilt)).hasSize(30);
        assertThat(stateFile.entries(ReclaimJob.SECTION))
                .as("the refused attempt's job is gone")
                .hasSize(1);
        assertNothingButOneMetadataFileUnreferencedOnceReclaimed(rebuilt);
    }

    /**
     * Nothing floe wrote for a refused install is left behind: once reclaimed, every data file,
     * manifest and manifest list on disk is the live table's. (Iceberg's JdbcTableOperations leaves
     * the metadata file of a commit that lost its compare-and-swap, floe's as any other writer's:
     * that one file is the catalog's, not floe's.)
     */
    private void assertNothingButOneMetadataFileUnreferencedOnceReclaimed(Table rebuilt) {
        new Reclaimer(catalog).runDue(Instant.now());
        Set<String> live = TestTables.localPaths(
                ReachableFiles.of(((HasTableOperations) rebuilt).operations().refresh(), rebuilt.io()));
        Set<String> onDisk;
        try (Stream<Path> files = Files.walk(root.resolve("warehouse"))) {
            onDisk = files.filter(Files::isRegularFile)
                    .map(Path::toString)
                    .filter(f -> !f.endsWith(".crc"))
                    .collect(Collectors.toSet());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Set<String> unreferenced = new java.util.HashSet<>(onDisk);
        unreferenced.removeAll(live);
        assertThat(onDisk).containsAll(live);
        assertThat(unreferenced).singleElement().asString().endsWith(".metadata.json");
    }

    @Test
    void recoveryDeletesOnlyTheCrashedRebuildsFilesTheLiveTableDoesNotReference() throws Exception {
        Table table = tinyAppends(3, 2);
        // a crashed rebuild: its journal lists a file it wrote and one the live table took in since
        RebuildJournal journal = new RebuildJournal(catalog.state(), EVENTS, ScratchTable.nameFor(EVENTS));
        journal.begin();
        org.apache.iceberg.DataFile orphan = TestTables.writeFile(table, TestTables.simpleRows(100, 2));
        org.apache.iceberg.DataFile adopted = TestTables.writeFile(table, TestTables.simpleRows(200, 2));
        journal.fileStarted(orphan.location());
        journal.fileStarted(adopted.location());
        table.newFastAppend().appendFile(adopted).commit();

        Recovery.Result result = Recovery.run(catalog, Instant.now());

        assertThat(result.scratchTablesDiscarded()).hasSize(1);
        assertThat(Files.exists(Path.of(orphan.location()))).isFalse();
        assertThat(Files.exists(Path.of(adopted.location()))).isTrue();
        assertThat(stateFile.entries(RebuildJournal.SECTION)).isEmpty();
        assertThat(TestTables.read(jdbc.loadTable(EVENTS))).hasSize(8);
    }
}
