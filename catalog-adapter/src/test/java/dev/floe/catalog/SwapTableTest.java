package dev.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link MapDbCatalog#swapTable}: atomic, compare-and-swap, durable, and it resets commit logs. */
class SwapTableTest {
    private static final Namespace NS = Namespace.of("db");
    private static final TableIdentifier LIVE = TableIdentifier.of(NS, "events");

    @TempDir
    Path root;

    private MapDbCatalog catalog;

    @BeforeEach
    void open() {
        catalog = TestCatalogs.open(root);
        catalog.createNamespace(NS);
    }

    @AfterEach
    void close() throws IOException {
        if (catalog != null) {
            catalog.close();
        }
    }

    @Test
    @Timeout(120)
    void readersNeverSeeLiveMissingDuringAThousandSwaps() throws Exception {
        Table live = catalog.buildTable(LIVE, TestCatalogs.SCHEMA).create();
        TestCatalogs.append(live, "seed");
        Path template = Paths.get(catalog.metadataLocation(LIVE));

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong rounds = new AtomicLong();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        Thread reader = new Thread(
                () -> {
                    while (!stop.get()) {
                        try {
                            Table loaded = catalog.loadTable(LIVE);
                            if (loaded.currentSnapshot() == null) {
                                problems.add("live loaded without its snapshot");
                            }
                            List<TableIdentifier> listed = catalog.listTables(NS);
                            if (!listed.contains(LIVE)) {
                                problems.add("listTables without live: " + listed);
                            }
                            List<String> names = new ArrayList<>();
                            catalog.loadTables(NS).forEach(table -> names.add(table.name()));
                            if (!names.contains("floe." + LIVE)) {
                                problems.add("loadTables without live: " + names);
                            }
                        } catch (RuntimeException e) {
                            problems.add(e.toString());
                        }
                        rounds.incrementAndGet();
                    }
                },
                "swap-reader");
        reader.start();

        List<String> locations = new ArrayList<>();
        String current = catalog.metadataLocation(LIVE);
        try {
            for (int n = 0; n < 1000 && problems.isEmpty(); n++) {
                TableIdentifier scratch = TableIdentifier.of(NS, LIVE.name() + "__c" + n);
                // each scratch table gets a metadata file of its own, so every swap moves the pointer
                Path copy = template.resolveSibling("scratch-" + n + ".metadata.json");
                Files.copy(template, copy);
                catalog.registerTable(scratch, copy.toString());

                String prior = catalog.swapTable(LIVE, scratch, current);

                assertThat(prior).isEqualTo(current);
                current = copy.toString();
                locations.add(current);
            }
        } finally {
            stop.set(true);
            reader.join(30_000);
        }

        assertThat(problems).isEmpty();
        assertThat(locations).hasSize(1000);
        assertThat(rounds.get()).as("reader rounds that overlapped the swaps").isGreaterThan(10);
        assertThat(catalog.listTables(NS)).containsExactly(LIVE);
        assertThat(catalog.metadataLocation(LIVE)).isEqualTo(current);
        assertThat(catalog.commitLog(LIVE).values()).containsExactly(current);
        assertThat(catalog.loadTable(LIVE).currentSnapshot()).isNotNull();
    }

    @Test
    void swapPrunesBothCommitLogsAndReseedsLive() {
        Table live = catalog.buildTable(LIVE, TestCatalogs.SCHEMA).create();
        for (int i = 0; i < 3; i++) {
            TestCatalogs.append(live, "live-" + i);
        }
        TableIdentifier temp = TableIdentifier.of(NS, "events__c0");
        Table scratch = catalog.buildTable(temp, TestCatalogs.SCHEMA).create();
        for (int i = 0; i < 2; i++) {
            TestCatalogs.append(scratch, "temp-" + i);
        }
        assertThat(catalog.commitLog(LIVE)).hasSize(4); // create + 3 appends
        assertThat(catalog.commitLog(temp)).hasSize(3); // create + 2 appends
        String liveLocation = catalog.metadataLocation(LIVE);
        String tempLocation = catalog.metadataLocation(temp);
        List<String> tempLog = List.copyOf(catalog.commitLog(temp).values());
        long tempSnapshot = scratch.currentSnapshot().snapshotId();

        catalog.swapTable(LIVE, temp, liveLocation);

        // the old table's entries are gone; the temp table's own continue under the live name
        assertThat(catalog.commitLog(LIVE).values()).containsExactlyElementsOf(tempLog);
        assertThat(tempLog).last().isEqualTo(tempLocation);
        assertThat(catalog.commitLog(temp)).isEmpty();
        assertThat(catalog.tableExists(temp)).isFalse();
        assertThat(catalog.metadataLocation(temp)).isNull();
        assertThat(catalog.metadataLocation(LIVE)).isEqualTo(tempLocation);
        assertThat(catalog.loadTable(LIVE).currentSnapshot().snapshotId()).isEqualTo(tempSnapshot);
        assertThatThrownBy(() -> catalog.loadTable(temp)).isInstanceOf(NoSuchTableException.class);

        // the re-seeded log goes on from there
        TestCatalogs.append(catalog.loadTable(LIVE), "after-swap");
        NavigableMap<Long, String> log = catalog.commitLog(LIVE);
        assertThat(log).hasSize(tempLog.size() + 1);
        assertThat(log.headMap(log.lastKey()).values()).containsExactlyElementsOf(tempLog);
        assertThat(log.lastEntry().getValue()).isEqualTo(catalog.metadataLocation(LIVE));
    }

    @Test
    void aSwapThatKeepsTheLiveLogAppendsTheTempLogAfterIt() {
        Table live = catalog.buildTable(LIVE, TestCatalogs.SCHEMA).create();
        for (int i = 0; i < 3; i++) {
            TestCatalogs.append(live, "live-" + i);
        }
        TableIdentifier temp = TableIdentifier.of(NS, "events__c0");
        Table scratch = catalog.buildTable(temp, TestCatalogs.SCHEMA).create();
        TestCatalogs.append(scratch, "temp-0");
        List<String> liveLog = List.copyOf(catalog.commitLog(LIVE).values());
        List<String> tempLog = List.copyOf(catalog.commitLog(temp).values());

        catalog.swapTable(LIVE, temp, catalog.metadataLocation(LIVE), List.of(), () -> {}, true);

        // a rebuilt version whose metadata log goes on from the live one's: the trim deletes the
        // live table's files by this log once the table's metadata log forgets them
        List<String> both = new java.util.ArrayList<>(liveLog);
        both.addAll(tempLog);
        assertThat(catalog.commitLog(LIVE).values()).containsExactlyElementsOf(both);
        assertThat(catalog.commitLog(temp)).isEmpty();
        assertThat(catalog.metadataLocation(LIVE)).isEqualTo(tempLog.get(tempLog.size() - 1));
    }

    @Test
    void missingTempIsAClearErrorAndChangesNothing() {
        Table live = catalog.buildTable(LIVE, TestCatalogs.SCHEMA).create();
        TestCatalogs.append(live, "live-0");
        TableIdentifier temp = TableIdentifier.of(NS, "events__c7");
        String liveLocation = catalog.metadataLocation(LIVE);
        NavigableMap<Long, String> log = catalog.commitLog(LIVE);

        assertThatThrownBy(() -> catalog.swapTable(LIVE, temp, liveLocation))
                .isInstanceOf(NoSuchTableException.class)
                .hasMessageContaining(temp.toString());
        assertThatThrownBy(() -> catalog.swapTable(LIVE, temp))
                .isInstanceOf(NoSuchTableException.class)
                .hasMessageContaining(temp.toString());

        assertThat(catalog.metadataLocation(LIVE)).isEqualTo(liveLocation);
        assertThat(catalog.commitLog(LIVE)).isEqualTo(log);
        assertThat(catalog.listTables(NS)).containsExactly(LIVE);
        assertThat(catalog.tableExists(temp)).isFalse();
    }

    @Test
    void staleExpectedLocationFailsTheSwapAndMovesNothing() {
        Table live = catalog.buildTable(LIVE, TestCatalogs.SCHEMA).create();
        String stale = catalog.metadataLocation(LIVE);
        TestCatalogs.append(live, "slipped-in"); // a commit lands after the swap was prepared
        String liveLocation = catalog.metadataLocation(LIVE);
        TableIdentifier temp = TableIdentifier.of(NS, "events__c0");
        catalog.buildTable(temp, TestCatalogs.SCHEMA).create();
        String tempLocation = catalog.metadataLocation(temp);
        NavigableMap<Long, String> liveLog = catalog.commitLog(LIVE);
        NavigableMap<Long, String> tempLog = catalog.commitLog(temp);

        assertThatThrownBy(() -> catalog.swapTable(LIVE, temp, stale))
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining(stale)
                .hasMessageContaining(liveLocation);

        assertThat(catalog.metadataLocation(LIVE)).isEqualTo(liveLocation);
        assertThat(catalog.metadataLocation(temp)).isEqualTo(tempLocation);
        assertThat(catalog.commitLog(LIVE)).isEqualTo(liveLog);
        assertThat(catalog.commitLog(temp)).isEqualTo(tempLog);
        assertThat(catalog.loadTable(LIVE).currentSnapshot()).isNotNull();

        // with the location it really has, the same swap goes through
        assertThat(catalog.swapTable(LIVE, temp, liveLocation)).isEqualTo(liveLocation);
        assertThat(catalog.metadataLocation(LIVE)).isEqualTo(tempLocation);
    }

    @Test
    void swapIsDurableAcrossReopen() throws IOException {
        Table live = catalog.buildTable(LIVE, TestCatalogs.SCHEMA).create();
        TestCatalogs.append(live, "live-0");
        TableIdentifier temp = TableIdentifier.of(NS, "events__c0");
        Table scratch = catalog.buildTable(temp, TestCatalogs.SCHEMA).create();
        TestCatalogs.append(scratch, "temp-0");
        String tempLocation = catalog.metadataLocation(temp);
        List<String> tempLog = List.copyOf(catalog.commitLog(temp).values());
        long tempSnapshot = scratch.currentSnapshot().snapshotId();

        catalog.swapTable(LIVE, temp, catalog.metadataLocation(LIVE));
        catalog.close();
        catalog = TestCatalogs.open(root);

        assertThat(catalog.metadataLocation(LIVE)).isEqualTo(tempLocation);
        assertThat(catalog.loadTable(LIVE).currentSnapshot().snapshotId()).isEqualTo(tempSnapshot);
        assertThat(catalog.tableExists(temp)).isFalse();
        assertThat(catalog.listTables(NS)).containsExactly(LIVE);
        assertThat(catalog.commitLog(LIVE).values())
                .containsExactlyElementsOf(tempLog)
                .endsWith(tempLocation);
        assertThat(catalog.commitLog(temp)).isEmpty();
    }

    @Test
    void returnsLiveLocationBeforeTheSwap() {
        Table live = catalog.buildTable(LIVE, TestCatalogs.SCHEMA).create();
        TestCatalogs.append(live, "live-0");
        String before = catalog.metadataLocation(LIVE);
        TableIdentifier temp = TableIdentifier.of(NS, "events__c0");
        catalog.buildTable(temp, TestCatalogs.SCHEMA).create();

        assertThat(catalog.swapTable(LIVE, temp)).isEqualTo(before);
        assertThat(catalog.metadataLocation(LIVE)).isNotEqualTo(before);
    }

    @Test
    void swapIntoAnAbsentLiveNameCreatesItAndReturnsNull() {
        TableIdentifier temp = TableIdentifier.of(NS, "events__c0");
        catalog.buildTable(temp, TestCatalogs.SCHEMA).create();
        String tempLocation = catalog.metadataLocation(temp);

        assertThat(catalog.swapTable(LIVE, temp)).isNull();
        assertThat(catalog.metadataLocation(LIVE)).isEqualTo(tempLocation);
        assertThat(catalog.listTables(NS)).containsExactly(LIVE);
    }

    @Test
    void aTableCannotBeSwappedWithItself() {
        catalog.buildTable(LIVE, TestCatalogs.SCHEMA).create();
        String location = catalog.metadataLocation(LIVE);

        assertThatThrownBy(() -> catalog.swapTable(LIVE, LIVE, location))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(LIVE.toString());
        assertThat(catalog.metadataLocation(LIVE)).isEqualTo(location);
    }

    @Test
    void failedSwapAsFirstChangeOfANewCatalogLeavesItUsable() throws IOException {
        Path fresh = root.resolve("fresh");
        TableIdentifier temp = TableIdentifier.of(NS, "events__c0");
        try (MapDbCatalog newCatalog = TestCatalogs.open(fresh)) {
            // the very first transaction on the new file fails and is rolled back
            assertThatThrownBy(() -> newCatalog.swapTable(LIVE, temp)).isInstanceOf(NoSuchTableException.class);

            newCatalog.createNamespace(NS);
            newCatalog.buildTable(temp, TestCatalogs.SCHEMA).create();
            newCatalog.swapTable(LIVE, temp);
            assertThat(newCatalog.listTables(NS)).containsExactly(LIVE);
        }
        try (MapDbCatalog reopened = TestCatalogs.open(fresh)) {
            assertThat(reopened.listTables(NS)).containsExactly(LIVE);
            assertThat(reopened.loadTable(LIVE)).isNotNull();
        }
    }

    @Test
    void loadTablesSkipsATableWhoseMetadataVanished() throws IOException {
        catalog.buildTable(LIVE, TestCatalogs.SCHEMA).create();
        TableIdentifier gone = TableIdentifier.of(NS, "events__c3");
        catalog.buildTable(gone, TestCatalogs.SCHEMA).create();
        Files.delete(Paths.get(catalog.metadataLocation(gone)));

        List<String> names = new ArrayList<>();
        catalog.loadTables(NS).forEach(table -> names.add(table.name()));

        assertThat(names).containsExactly("floe." + LIVE);
    }
}
