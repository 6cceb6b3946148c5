package dev.floe.runtime.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.install.RebuiltFiles;
import dev.floe.runtime.rebuild.CompactionProbe;
import dev.floe.runtime.rebuild.Compactor;
import dev.floe.runtime.testing.TestTables;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import javax.management.ObjectName;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The guard used as a plain library: the host calls its hooks around each commit itself. */
class GuardTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @TempDir
    Path root;

    MapDbCatalog catalog;
    Guard guard;

    @BeforeEach
    void open() {
        catalog = TestTables.catalog(root);
        catalog.createNamespace(Namespace.of("db"));
        GuardSettings defaults = GuardSettings.defaults();
        guard = new Guard(
                TestTables.guardSettings(
                        10,
                        RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO),
                        () -> Prune.NONE,
                        true),
                java.time.Clock.systemUTC(),
                ",test=" + System.nanoTime());
        assertThat(defaults.triggerSnapshots()).isEqualTo(500);
    }

    @AfterEach
    void close() throws Exception {
        guard.close();
        catalog.close();
    }

    /** db.events, unpartitioned, created with one table property. */
    private Table eventsWith(String property, String value) {
        return catalog.createTable(
                EVENTS, TestTables.SIMPLE, PartitionSpec.unpartitioned(), java.util.Map.of(property, value));
    }

    /** What the agent's advice does around {@code ops.commit}. */
    private void guardedAppend(Table table, long firstId) {
        guardedCommit(table, () -> TestTables.append(table, TestTables.simpleRows(firstId, 2)));
    }

    private void guardedCommit(Table table, Runnable commit) {
        TestTables.guardedCommit(guard, table, commit);
    }

    @Test
    void crossingTheSnapshotTriggerRebuildsInTheBackground() throws Exception {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        guard.tableLoaded(EVENTS, table);
        for (int i = 0; i < 10; i++) {
            guardedAppend(table, i * 2L);
        }
        guard.awaitIdle(Duration.ofMinutes(1));

        Table live = catalog.loadTableUncached(EVENTS);
        TestTables.rebuiltSnapshot(live);
        assertThat(TestTables.read(live)).hasSize(20);
        assertThat(guard.metrics(EVENTS).getRebuilds()).isEqualTo(1);
        assertThat(guard.metrics(EVENTS).getLastReport()).contains("rebuilt db.events: 10 snapshots -> 1");
        assertThat(guard.metrics(EVENTS).getTrackedHandles()).isEqualTo(1);
        // the tracked handle was reloaded onto the rebuilt table
        TestTables.rebuiltSnapshot(table);

        guardedAppend(table, 100);
        assertThat(TestTables.read(catalog.loadTableUncached(EVENTS))).hasSize(22);
    }

    @Test
    void metricsAreOnJmx() throws Exception {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        guardedAppend(table, 0);
        var server = ManagementFactory.getPlatformMBeanServer();
        var names = server.queryNames(new ObjectName("dev.floe:type=Table,name=db.events,*"), null);
        assertThat(names).hasSize(1);
        ObjectName name = names.iterator().next();
        assertThat(server.getAttribute(name, "Snapshots")).isEqualTo(1);
        assertThat(server.getAttribute(name, "Commits")).isEqualTo(1L);
        assertThat((Long) server.getAttribute(name, "MetadataBytes")).isPositive();
        assertThat(server.queryNames(new ObjectName("dev.floe:type=Agent,*"), null))
                .isNotEmpty();
    }

    @Test
    void tablesOutsideTheGlobsAndScratchTablesAreNotGuarded() {
        assertThat(guard.beforeCommit(TableIdentifier.of("other", "t"))).isEqualTo(-1);
        assertThat(guard.beforeCommit(TableIdentifier.of("db", "events__c123"))).isEqualTo(-1);
        assertThat(guard.guards(EVENTS)).isTrue();
    }

    @Test
    void aTableWithATagIsMonitoredButNotRebuiltAndNoRebuildIsTried() throws Exception {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        TestTables.append(table, TestTables.simpleRows(0, 1));
        table.manageSnapshots()
                .createTag("audited", table.currentSnapshot().snapshotId())
                .commit();
        for (int i = 1; i < 12; i++) {
            long from = i;
            guardedCommit(table, () -> TestTables.append(table, TestTables.simpleRows(from, 1)));
        }
        guard.awaitIdle(Duration.ofMinutes(1));

        assertThat(catalog.loadTableUncached(EVENTS).snapshots()).hasSize(12);
        assertThat(guard.metrics(EVENTS).getSnapshots()).isEqualTo(12);
        assertThat(guard.metrics(EVENTS).getRebuilds()).isZero();
        assertThat(guard.getErrors()).as("refused before a rebuild is queued").isZero();
    }

    @Test
    void forgottenMetadataFilesAreDeletedOnTheBackgroundThread() throws Exception {
        guard.close();
        guard = new Guard(
                TestTables.guardSettings(
                        100, RebuildSettings.defaults().with(s -> s.metadataVersions = 3), () -> Prune.NONE, false),
                java.time.Clock.systemUTC(),
                ",test=" + System.nanoTime());
        Table table = eventsWith(org.apache.iceberg.TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "2");
        for (int i = 0; i < 5; i++) {
            guardedAppend(table, i * 2L);
        }
        guard.awaitIdle(Duration.ofMinutes(1));
        // the 3rd commit queued a trim: of create + 3 appends, the log of 2 forgot the first
        assertThat(catalog.commitLog(EVENTS)).hasSize(5);

        guardedAppend(table, 100);
        guard.awaitIdle(Duration.ofMinutes(1));

        // the 6th: only the current file and the 2 the log lists are left, on disk and in the log
        assertThat(catalog.commitLog(EVENTS)).hasSize(3);
        long onDisk = TestTables.filesOnDisk(root).stream()
                .filter(f -> f.endsWith(".metadata.json"))
                .count();
        assertThat(onDisk).isEqualTo(3);
        assertThat(TestTables.read(catalog.loadTableUncached(EVENTS))).hasSize(12);
    }

    /** What the agent's advice does around {@code SnapshotProducer.commit()} (and ops.commit inside). */
    private void guardedOperation(Table table, Runnable operation) {
        long wait = guard.beforeOperation(EVENTS);
        try {
            guardedCommit(table, operation);
        } finally {
            guard.afterOperation(EVENTS, wait);
        }
    }

    @Test
    void anOperationWaitingAtTheGateDuringARebuildLandsOnTheRebuiltTable() throws Exception {
        // no retries: a commit whose compare-and-swap failed would throw instead of retrying
        Table table = eventsWith(org.apache.iceberg.TableProperties.COMMIT_NUM_RETRIES, "0");
        for (int i = 0; i < 3; i++) {
            guardedAppend(table, i * 2L);
        }
        org.apache.iceberg.DataFile file = TestTables.writeFile(table, TestTables.simpleRows(100, 2));
        guard.gate().enter(TableKey.embedded(EVENTS)); // a rebuild about to swap holds the gate
        var waiting = java.util.concurrent.CompletableFuture.runAsync(() -> guardedOperation(
                table, () -> table.newFastAppend().appendFile(file).commit()));
        while (guard.gate().waiting(TableKey.embedded(EVENTS)) == 0) {
            // observed, not timed: the operation is parked at the gate once it is queued on its lock
            assertThat(waiting).isNotDone();
            Thread.onSpinWait();
        }
        assertThat(waiting).isNotDone();
        new Compactor(
                        RebuildSettings.defaults(),
                        guard.gate(),
                        new HandleRegistry(0),
                        CompactionProbe.NONE,
                        java.time.Clock.systemUTC())
                .compactTable(catalog, EVENTS, Prune.NONE);
        guard.gate().exit(TableKey.embedded(EVENTS));

        waiting.get(1, java.util.concurrent.TimeUnit.MINUTES);
        Table live = catalog.loadTableUncached(EVENTS);
        assertThat(live.snapshot(live.currentSnapshot().parentId()).summary())
                .as("the waiting append landed on the rebuilt snapshot")
                .containsKey(RebuiltFiles.REBUILD_OF);
        assertThat(TestTables.read(live))
                .extracting(r -> r.getField("id"))
                .containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 100L, 101L);
        // the wait it reported is the one it spent parked at the gate: more than none
        assertThat(guard.metrics(EVENTS).getGateWaitP99Millis()).isPositive();
    }
}
