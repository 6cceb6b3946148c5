package dev.floe.runtime.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guard on a shared catalog (Iceberg's JdbcCatalog over a real SQLite file), driven as the
 * agent's advice drives it: only a table {@code floe.tables} names is gated, it is rebuilt in place
 * on the host's own catalog instance with its records in the state file, the handle the host holds
 * is reloaded, and the metadata files host commits drop from the log are deleted.
 */
class SharedCatalogGuardTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final TableIdentifier OTHER = TableIdentifier.of("db", "other");

    @TempDir
    Path root;

    JdbcCatalog jdbc;
    Map<String, String> properties = new HashMap<>();
    Guard guard;

    @BeforeEach
    void open() {
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + root.resolve("catalog.sqlite"));
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION, root.resolve("warehouse").toString());
        properties.put("jdbc.schema-version", "V1");
        properties.put(CatalogProperties.CLIENT_POOL_SIZE, "1"); // SQLite: see docs/attach.md
        jdbc = new JdbcCatalog();
        jdbc.setConf(new Configuration());
        jdbc.initialize("ingest", properties);
        jdbc.createNamespace(Namespace.of("db"));
    }

    @AfterEach
    void close() {
        if (guard != null) {
            guard.close();
        }
        jdbc.close();
    }

    /** A guard of {@code ingest.db.events} alone: the table named with its catalog's name first. */
    private Guard guard(long triggerSnapshots) {
        GuardSettings settings = new GuardSettings(
                List.of("ingest.db.events"),
                triggerSnapshots,
                1000,
                16L << 20,
                Duration.ZERO,
                GuardSettings.DEFAULT_MERGE_MANIFESTS,
                RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO),
                () -> Prune.NONE,
                16,
                false,
                Duration.ofMinutes(1),
                Duration.ofHours(1),
                root.resolve("floe-state.db"));
        return new Guard(settings, Clock.systemUTC(), "");
    }

    /** What the agent's advice does around a commit of a shared catalog's table. */
    private static void guardedAppend(Guard guard, SharedCatalog catalog, Table table, List<Record> rows) {
        TableKey key =
                new TableKey(catalog.key(), TableIdentifier.parse(table.name().substring("ingest.".length())));
        TableOperations ops = ((HasTableOperations) table).operations();
        TableMetadata base = ops.current();
        long wait = guard.beforeCommit(key);
        boolean ok = false;
        try {
            TestTables.append(table, rows);
            ok = true;
        } finally {
            guard.afterCommit(catalog, key.table(), base, ops.current(), ok, wait);
        }
    }

    @Test
    void aNamedTableIsRebuiltInPlaceOnTheHostsInstanceAndItsHandleReloaded() throws Exception {
        guard = guard(10);
        SharedCatalog catalog = guard.catalogOpened(SharedCatalog.of(jdbc, "ingest", properties, null), jdbc);
        Table handle = jdbc.createTable(EVENTS, TestTables.SIMPLE);
        String uuid = ((HasTableOperations) handle).operations().current().uuid();
        TableKey key = new TableKey(catalog.key(), EVENTS);
        guard.tableLoaded(key, handle);

        for (int i = 0; i < 10; i++) {
            guardedAppend(guard, catalog, handle, TestTables.simpleRows(i * 5L, 5));
        }
        guard.awaitIdle(Duration.ofMinutes(1));

        assertThat(guard.metrics(key).getRebuilds()).isEqualTo(1);
        TestTables.rebuiltSnapshot(handle); // the held handle was reloaded: the rebuilt snapshot is its current one
        guardedAppend(guard, catalog, handle, TestTables.simpleRows(50, 5));
        guardedAppend(guard, catalog, handle, TestTables.simpleRows(55, 5));
        Table fresh = jdbc.loadTable(EVENTS);
        assertThat(((HasTableOperations) fresh).operations().current().uuid()).isEqualTo(uuid);
        assertThat(TestTables.fingerprints(fresh))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 60), fresh.schema()));
        assertThat(root.resolve("floe-state.db")).exists();

        guardedAppend(guard, catalog, handle, TestTables.simpleRows(60, 5));
        assertThat(TestTables.fingerprints(jdbc.loadTable(EVENTS)))
                .as("the held handle appends after the rebuild")
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 65), fresh.schema()));
    }

    @Test
    void aTableFloeTablesDoesNotNameIsNeitherGatedNorRebuilt() throws Exception {
        guard = guard(3);
        SharedCatalog catalog = guard.catalogOpened(SharedCatalog.of(jdbc, "ingest", properties, null), jdbc);
        Table other = jdbc.createTable(OTHER, TestTables.SIMPLE);

        assertThat(guard.guards(new TableKey(catalog.key(), OTHER))).isFalse();
        assertThat(guard.beforeCommit(new TableKey(catalog.key(), OTHER))).isEqualTo(-1);
        for (int i = 0; i < 6; i++) {
            TestTables.append(other, TestTables.simpleRows(i, 1));
        }
        guard.awaitIdle(Duration.ofMinutes(1));
        assertThat(jdbc.loadTable(OTHER).snapshots()).hasSize(6);
        assertThat(root.resolve("floe-state.db"))
                .as("no state file for nothing")
                .doesNotExist();
    }

    @Test
    void metadataFilesHostCommitsDropFromTheLogAreDeleted() throws Exception {
        guard = guard(1_000);
        SharedCatalog catalog = guard.catalogOpened(SharedCatalog.of(jdbc, "ingest", properties, null), jdbc);
        Table handle = jdbc.buildTable(EVENTS, TestTables.SIMPLE)
                .withProperty("write.metadata.previous-versions-max", "3")
                .create();

        for (int i = 0; i < 30; i++) {
            guardedAppend(guard, catalog, handle, TestTables.simpleRows(i, 1));
        }
        guard.awaitIdle(Duration.ofMinutes(1));

        TableMetadata current =
                ((HasTableOperations) jdbc.loadTable(EVENTS)).operations().current();
        assertThat(current.previousFiles()).hasSize(3);
        List<String> onDisk;
        try (Stream<Path> files = Files.list(root.resolve("warehouse/db/events/metadata"))) {
            onDisk = files.map(Path::toString)
                    .filter(f -> f.endsWith(".metadata.json"))
                    .collect(Collectors.toList());
        }
        // the current file, the three its log lists; the trim runs every 10 commits (the default
        // floe.rebuild.metadata-versions), and the 30th commit's run has just deleted the rest
        assertThat(onDisk).hasSize(4);
    }
}
