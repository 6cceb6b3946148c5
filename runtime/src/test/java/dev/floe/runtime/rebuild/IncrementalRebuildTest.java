package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.install.RebuiltFiles;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rebuild costs what changed: files already settled are kept byte for byte at the same path, and
 * only the small files that arrived since are read and packed; a full rebuild rewrites them all.
 */
class IncrementalRebuildTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    /**
     * A target small enough that the first rebuild makes settled files (3/4 of it: 192 KiB), and row
     * groups of 2,000 rows, so that a file's size is known as it is written and it rolls.
     */
    static final RebuildSettings SETTINGS = RebuildSettings.defaults().with(s -> {
        s.targetFileBytes = 256 << 10;
        s.rowGroupRows = 2_000;
    });

    static final int ROWS = 1_000;
    static final int COMMITS = 100;

    @TempDir
    Path root;

    MapDbCatalog catalog;

    @BeforeEach
    void open() {
        catalog = TestTables.catalog(root);
        catalog.createNamespace(Namespace.of("db"));
    }

    @org.junit.jupiter.api.AfterEach
    void close() throws Exception {
        catalog.close();
    }

    private Table appendCommits(Table table, long from, int commits) {
        for (int i = 0; i < commits; i++) {
            TestTables.append(table, TestTables.simpleRows(from + i * (long) ROWS, ROWS));
        }
        return table;
    }

    /** Path to SHA-256 of its bytes on disk, for every data file of the table. */
    private static Map<String, String> dataFiles(Table table) throws Exception {
        table.refresh();
        Map<String, String> files = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                byte[] bytes = Files.readAllBytes(Path.of(task.file().location().replace("file:", "")));
                files.put(
                        task.file().location(),
                        HexFormat.of()
                                .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
            }
        }
        return files;
    }

    @Test
    void settledFilesAreKeptByteForByteAndOnlyTheNewSmallOnesAreRewritten() throws Exception {
        Table table = appendCommits(catalog.createTable(EVENTS, TestTables.SIMPLE), 0, COMMITS);
        CompactReport first = new Compactor(SETTINGS).compactTable(catalog, EVENTS, Prune.NONE);
        assertThat(first.keptFiles()).isZero();
        Map<String, String> settled = new HashMap<>();
        Table rebuilt = catalog.loadTable(EVENTS);
        try (CloseableIterable<FileScanTask> tasks = rebuilt.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                if (task.file().fileSizeInBytes() >= SizeTiers.settledBytes(SETTINGS.targetFileBytes())) {
                    settled.put(task.file().location(), null);
                }
            }
        }
        assertThat(settled).as("the first rebuild made settled files").isNotEmpty();
        Map<String, String> afterFirst = dataFiles(rebuilt);
        settled.replaceAll((path, digest) -> afterFirst.get(path));

        appendCommits(catalog.loadTable(EVENTS), COMMITS * (long) ROWS, 10);
        List<String> before = TestTables.fingerprints(catalog.loadTable(EVENTS));
        CompactReport second = new Compactor(SETTINGS).compactTable(catalog, EVENTS, Prune.NONE);

        Table again = catalog.loadTable(EVENTS);
        TestTables.rebuiltSnapshot(again);
        assertThat(TestTables.fingerprints(again))
                .as("every row, field by field")
                .isEqualTo(before);
        assertThat(dataFiles(again)).as("same paths, same bytes").containsAllEntriesOf(settled);
        assertThat(second.keptFiles()).isGreaterThanOrEqualTo(settled.size());
        assertThat(second.rows())
                .as("only the rows of the ten new commits (and small files of the first rebuild) are read")
                .isLessThan(first.rows())
                .isGreaterThanOrEqualTo(10 * ROWS);
        assertThat(second.rows() + second.keptRows()).isEqualTo((COMMITS + 10) * ROWS);
        assertThat(again.currentSnapshot().summary()).containsEntry(RebuiltFiles.SINCE_FULL, "2");
    }

    @Test
    void aTableSmallerThanOneTargetIsNotRewrittenWholeAtEveryRebuild() throws Exception {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int i = 0; i < 20; i++) {
            TestTables.append(table, TestTables.simpleRows(i * 5_000L, 5_000));
        }
        Compactor defaults = new Compactor(RebuildSettings.defaults()); // 512 MiB targets
        defaults.compactTable(catalog, EVENTS, Prune.NONE);
        Map<String, String> first = dataFiles(catalog.loadTable(EVENTS));
        assertThat(first).hasSize(1);
        table = catalog.loadTable(EVENTS);
        for (int i = 0; i < 10; i++) {
            TestTables.append(table, TestTables.simpleRows(100_000L + i * 100L, 100));
        }

        CompactReport second = defaults.compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(second.keptFiles())
                .as("the first rebuild's file waits in its tier")
                .isEqualTo(1);
        assertThat(second.rows()).as("only the ten new commits are read").isEqualTo(1_000);
        assertThat(dataFiles(catalog.loadTable(EVENTS)))
                .containsAllEntriesOf(first)
                .hasSize(2);
        assertThat(TestTables.read(catalog.loadTable(EVENTS))).hasSize(101_000);
    }

    @Test
    void aFullRebuildRewritesTheSettledFilesToo() throws Exception {
        appendCommits(catalog.createTable(EVENTS, TestTables.SIMPLE), 0, COMMITS);
        new Compactor(SETTINGS).compactTable(catalog, EVENTS, Prune.NONE);
        Map<String, String> afterFirst = dataFiles(catalog.loadTable(EVENTS));
        appendCommits(catalog.loadTable(EVENTS), COMMITS * (long) ROWS, 10);

        CompactReport full =
                new Compactor(SETTINGS).compactTable(new MapDbRebuildCatalog(catalog), EVENTS, Prune.NONE, true);

        Table again = catalog.loadTable(EVENTS);
        assertThat(full.keptFiles()).isZero();
        assertThat(full.rows()).isEqualTo((COMMITS + 10) * ROWS);
        assertThat(dataFiles(again).keySet()).doesNotContainAnyElementsOf(afterFirst.keySet());
        assertThat(again.currentSnapshot().summary()).containsEntry(RebuiltFiles.SINCE_FULL, "0");
    }

    @Test
    void everyNthRebuildIsFullWhenConfigured() throws Exception {
        RebuildSettings everySecond = SETTINGS.with(s -> s.fullEvery = 2);
        appendCommits(catalog.createTable(EVENTS, TestTables.SIMPLE), 0, COMMITS);
        assertThat(new Compactor(everySecond)
                        .compactTable(catalog, EVENTS, Prune.NONE)
                        .full())
                .isFalse();
        appendCommits(catalog.loadTable(EVENTS), COMMITS * (long) ROWS, 10);
        assertThat(new Compactor(everySecond)
                        .compactTable(catalog, EVENTS, Prune.NONE)
                        .full())
                .isTrue();
        appendCommits(catalog.loadTable(EVENTS), (COMMITS + 10) * (long) ROWS, 10);
        CompactReport third = new Compactor(everySecond).compactTable(catalog, EVENTS, Prune.NONE);
        assertThat(third.full()).isFalse();
        assertThat(third.keptFiles()).isPositive();
    }

    @Test
    void aPruneSeesEveryRowAndOnlyTheFilesItDropsFromAreRewritten() throws Exception {
        appendCommits(catalog.createTable(EVENTS, TestTables.SIMPLE), 0, COMMITS);
        new Compactor(SETTINGS).compactTable(catalog, EVENTS, Prune.NONE);
        Map<String, String> afterFirst = dataFiles(catalog.loadTable(EVENTS));

        Prune dropSeven = row -> (Long) row.getField("id") == 7L;
        CompactReport pruned = new Compactor(SETTINGS).compactTable(catalog, EVENTS, dropSeven);

        Table again = catalog.loadTable(EVENTS);
        assertThat(pruned.rowsPruned()).isEqualTo(1);
        assertThat(TestTables.read(again)).hasSize(COMMITS * ROWS - 1).noneMatch(r -> (Long) r.getField("id") == 7L);
        Map<String, String> now = dataFiles(again);
        assertThat(afterFirst.keySet().stream().filter(now::containsKey).count())
                .as("the file holding id 7 is rewritten; the others are kept")
                .isEqualTo(afterFirst.size() - 1);
        assertThat(pruned.keptFiles()).isEqualTo(afterFirst.size() - 1);
    }
}
