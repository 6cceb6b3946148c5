package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildJournal;
import dev.floe.runtime.testing.RowDeltas;
import dev.floe.runtime.testing.TestTables;
import dev.floe.runtime.upkeep.Recovery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The major work of a table (a promotion of settled tiers) is written apart from its rebuilds: the
 * rebuilds at the trigger go on packing what arrives and keep the major rebuild's inputs as they
 * are, and the next rebuild after it has written installs its files in their place, every row
 * exactly as it was. Here the major rebuild's thread is the test's: it runs when the test says.
 */
class MajorRebuildTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    /** Twenty files of 1,000 rows are major work, five of 100 rows minor; small files settle fast. */
    static final RebuildSettings SETTINGS = RebuildSettings.defaults().with(s -> {
        s.targetFileBytes = 256 << 10;
        s.rowGroupRows = 2_000;
        s.majorBytes = 32 << 10;
    });

    static final int ROWS = 1_000;

    @TempDir
    Path root;

    MapDbCatalog catalog;
    final List<Runnable> queued = new ArrayList<>();
    boolean stopped;
    Promotions promotions;
    Compactor compactor;

    @BeforeEach
    void open() {
        catalog = TestTables.catalog(root);
        catalog.createNamespace(Namespace.of("db"));
        promotions = new Promotions(
                queued::add,
                Runnable::run, // what a rebuild leaves for after: at once
                (table, work) -> {
                    work.accept(new MapDbRebuildCatalog(catalog));
                    return true;
                },
                () -> stopped);
        compactor = new Compactor(
                SETTINGS, new WriterGate(), new HandleRegistry(0), CompactionProbe.NONE, Clock.systemUTC(), promotions);
    }

    @AfterEach
    void close() throws Exception {
        catalog.close();
    }

    private void append(long from, int commits) {
        append(from, commits, ROWS);
    }

    private void append(long from, int commits, int rows) {
        Table table = catalog.loadTable(EVENTS);
        for (int i = 0; i < commits; i++) {
            TestTables.append(table, TestTables.simpleRows(from + i * (long) rows, rows));
        }
    }

    private Set<String> dataFiles() {
        Set<String> files = new HashSet<>();
        RowDeltas.dataFiles(catalog.loadTable(EVENTS)).forEach(file -> files.add(file.location()));
        return files;
    }

    private CompactReport rebuild() {
        return compactor.compactTable(catalog, EVENTS, Prune.NONE);
    }

    /** The Parquet files on disk now that were not in {@code before}. */
    private Set<String> parquetFilesSince(Set<String> before) {
        Set<String> files = TestTables.filesOnDisk(root);
        files.removeAll(before);
        files.removeIf(file -> !file.endsWith(".parquet"));
        return files;
    }

    /** Runs what the major rebuild's thread was given, as that thread would. */
    private void runMajorWork() {
        assertThat(queued).as("one major rebuild was started").hasSize(1);
        queued.remove(0).run();
    }

    @Test
    void rebuildsGoOnWhileTheMajorWorkRunsAndTheNextOneInstallsWhatItWrote() throws Exception {
        catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(0, 20);
        Set<String> inputs = dataFiles();

        CompactReport first = rebuild();

        assertThat(first.keptFiles())
                .as("set apart: kept as they are meanwhile")
                .isEqualTo(20);
        assertThat(first.rows()).isZero();
        assertThat(queued).hasSize(1);

        append(20_000, 5, 100);
        Set<String> arrived = dataFiles();
        arrived.removeAll(inputs);
        CompactReport second = rebuild();

        assertThat(second.rows()).as("what arrived is packed without waiting").isEqualTo(500);
        assertThat(second.keptFiles()).isEqualTo(20);
        assertThat(dataFiles()).containsAll(inputs).doesNotContainAnyElementsOf(arrived);

        append(30_000, 20);
        CompactReport third = rebuild();

        assertThat(third.rows())
                .as("more major work while the table's runs: kept for later, never packed here")
                .isZero();
        assertThat(queued).as("one major rebuild per table at a time").hasSize(1);

        runMajorWork();
        append(60_000, 5, 100);
        List<String> before = TestTables.fingerprints(catalog.loadTable(EVENTS));
        rebuild();

        Table installed = catalog.loadTable(EVENTS);
        assertThat(TestTables.fingerprints(installed))
                .as("every row, field by field")
                .isEqualTo(before);
        assertThat(dataFiles()).as("the inputs are replaced").doesNotContainAnyElementsOf(inputs);
        assertThat(RebuildJournal.unfinished(new MapDbRebuildCatalog(catalog).state()))
                .as("the major rebuild's journal went with the install")
                .isEmpty();
        for (String file : dataFiles()) {
            assertThat(Path.of(file.replace("file:", ""))).exists();
        }

        Set<String> second20 = dataFiles();
        rebuild(); // starts the major rebuild of what waited
        runMajorWork();
        rebuild(); // installs it
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(before);
        assertThat(dataFiles()).hasSizeLessThan(second20.size());
        assertThat(queued).isEmpty();
    }

    @Test
    void aDeleteCommittedWhileTheInstallingRebuildRunsLandsOnItsRowInWhatTheMajorRebuildWrote() {
        catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(0, 20);
        rebuild();
        runMajorWork();
        Table host = catalog.loadTableUncached(EVENTS);
        // the file of the first commit: ids 0 to 999 in order, so its eighth row is id 7
        DataFile input = null;
        try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
                host.newScan().includeColumnStats().planFiles()) {
            for (org.apache.iceberg.FileScanTask task : tasks) {
                java.nio.ByteBuffer lower = task.file().lowerBounds().get(1);
                if ((Long) org.apache.iceberg.types.Conversions.fromByteBuffer(
                                org.apache.iceberg.types.Types.LongType.get(), lower)
                        == 0L) {
                    input = task.file();
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(input).isNotNull();
        DataFile first = input;
        CompactionProbe probe = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                host.refresh();
                host.newRowDelta()
                        .addDeletes(RowDeltas.positionDeletes(host, first, 7))
                        .commit();
            }
        };
        Table before = catalog.loadTable(EVENTS);
        List<String> expected = new ArrayList<>(TestTables.fingerprints(before));

        CompactReport installing = new Compactor(
                        SETTINGS, new WriterGate(), new HandleRegistry(0), probe, Clock.systemUTC(), promotions)
                .compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(installing.attempts()).as("rebased, not started again").isEqualTo(1);
        assertThat(dataFiles()).doesNotContain(input.location());
        List<org.apache.iceberg.data.Record> all = new ArrayList<>(TestTables.simpleRows(0, 20 * ROWS));
        all.removeIf(row -> (Long) row.getField("id") == 7L);
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS)))
                .as("every row but the eighth of the first file, id 7")
                .isEqualTo(TestTables.fingerprints(all, TestTables.SIMPLE))
                .hasSize(expected.size() - 1);
    }

    @Test
    void anEqualityDeleteOnAnInputWhileItIsPackedGivesItUpAndTheUpsertStands() throws Exception {
        catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(0, 20);
        rebuild();
        Set<String> onDisk = TestTables.filesOnDisk(root);
        Table table = catalog.loadTable(EVENTS);
        // an upsert of id 5: its old version deleted by value, its new one appended
        table.newRowDelta()
                .addDeletes(RowDeltas.equalityDeletes(table, 5))
                .addRows(TestTables.writeFile(table, List.of(TestTables.simpleRow(5))))
                .commit();
        List<String> before = TestTables.fingerprints(catalog.loadTable(EVENTS));
        assertThat(TestTables.read(catalog.loadTable(EVENTS))).hasSize(20 * ROWS);

        CompactReport second = rebuild();
        runMajorWork(); // it ends given up: what it wrote goes

        assertThat(second.rows())
                .as("the inputs are rewritten here, the delete applied")
                .isGreaterThan(0);
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(before);
        Set<String> left = parquetFilesSince(onDisk);
        Table now = catalog.loadTable(EVENTS);
        assertThat(TestTables.localPaths(dev.floe.runtime.seam.ReachableFiles.of(
                        ((org.apache.iceberg.HasTableOperations) now)
                                .operations()
                                .current(),
                        now.io())))
                .as("no file the given-up major rebuild wrote is left")
                .containsAll(left);
        assertThat(RebuildJournal.unfinished(new MapDbRebuildCatalog(catalog).state()))
                .isEmpty();
        rebuild();
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(before);
    }

    @Test
    void aDeleteOnAnInputWhileItIsPackedApartDiscardsWhatItWrote() throws Exception {
        catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(0, 20);
        rebuild();
        Set<String> onDiskBefore = TestTables.filesOnDisk(root);
        runMajorWork();
        Set<String> written = parquetFilesSince(onDiskBefore);
        assertThat(written).as("the major rebuild wrote its files").isNotEmpty();

        Table table = catalog.loadTable(EVENTS);
        DataFile first = RowDeltas.dataFiles(table).get(0);
        table.newRowDelta()
                .addDeletes(RowDeltas.positionDeletes(table, first, 3))
                .commit();
        List<String> before = TestTables.fingerprints(catalog.loadTable(EVENTS));
        rebuild();

        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS)))
                .as("every row, the deleted one gone")
                .isEqualTo(before)
                .hasSize(20 * ROWS - 1);
        assertThat(TestTables.filesOnDisk(root)).as("what it wrote is deleted").doesNotContainAnyElementsOf(written);
        assertThat(RebuildJournal.unfinished(new MapDbRebuildCatalog(catalog).state()))
                .isEmpty();
    }

    @Test
    void aMajorRebuildStoppedByTheExitDeletesWhatItWroteAndItsInputsGoBackToTheRebuilds() throws Exception {
        catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(0, 20);
        rebuild();
        Set<String> onDisk = TestTables.filesOnDisk(root);
        stopped = true;
        runMajorWork();
        stopped = false;

        Set<String> after = TestTables.filesOnDisk(root);
        after.removeIf(file -> !file.endsWith(".parquet"));
        assertThat(onDisk).containsAll(after);
        List<String> before = TestTables.fingerprints(catalog.loadTable(EVENTS));

        CompactReport again = rebuild();

        assertThat(again.keptFiles()).as("the inputs are set apart anew").isEqualTo(20);
        assertThat(queued).hasSize(1);
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(before);
    }

    @Test
    void recoveryDeletesTheFilesADeadProcessesMajorRebuildLeftButNotThoseInstalled() throws Exception {
        catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(0, 3);
        String installed = RowDeltas.dataFiles(catalog.loadTable(EVENTS)).get(0).location();
        Path orphan = root.resolve("orphan-of-a-major-rebuild.parquet");
        Files.write(orphan, new byte[] {1, 2, 3});
        // the record a process that died mid-way left: it lists a file before writing a byte of it
        RebuildJournal left = RebuildJournal.forMajor(new MapDbRebuildCatalog(catalog).state(), EVENTS);
        left.fileStarted(orphan.toUri().toString());
        left.fileStarted(installed);

        Recovery.run(catalog, Instant.now());

        assertThat(orphan).doesNotExist();
        assertThat(Path.of(installed.replace("file:", ""))).exists();
        assertThat(TestTables.read(catalog.loadTable(EVENTS))).hasSize(3 * ROWS);
        assertThat(RebuildJournal.unfinished(new MapDbRebuildCatalog(catalog).state()))
                .isEmpty();
    }

    @Test
    void withoutPromotionsEveryGroupIsPackedInTheRebuild() {
        catalog.createTable(EVENTS, TestTables.SIMPLE);
        append(0, 20);
        CompactReport inline = new Compactor(SETTINGS).compactTable(catalog, EVENTS, Prune.NONE);
        assertThat(inline.rows()).isEqualTo(20 * ROWS);
        assertThat(inline.keptFiles()).isZero();
    }
}
