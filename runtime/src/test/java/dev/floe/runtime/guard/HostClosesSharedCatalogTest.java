package dev.floe.runtime.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host that closes its instance of a shared catalog (as one does when it ends): floe's work on
 * that catalog waits, without an error, until the host initialises another, and goes on there.
 */
class HostClosesSharedCatalogTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @TempDir
    Path root;

    private Map<String, String> properties() {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + root.resolve("catalog.sqlite"));
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION, root.resolve("warehouse").toString());
        properties.put("jdbc.schema-version", "V1");
        return properties;
    }

    private JdbcCatalog jdbc() {
        JdbcCatalog catalog = new JdbcCatalog();
        catalog.setConf(new Configuration());
        catalog.initialize("ingest", properties());
        return catalog;
    }

    @Test
    void workOnAClosedInstanceWaitsForTheHostsNextOneWithoutAnError() throws Exception {
        Guard guard = new Guard(
                TestTables.guardSettings(1000, RebuildSettings.defaults(), () -> Prune.NONE, false)
                        .withStateFile(root.resolve("floe-state.db")),
                Clock.systemUTC(),
                ",test=" + System.nanoTime());
        try {
            JdbcCatalog host = jdbc();
            host.createNamespace(Namespace.of("db"));
            Table table = host.createTable(EVENTS, TestTables.SIMPLE);
            TestTables.append(table, TestTables.simpleRows(0, 2));
            SharedCatalog shared = guard.catalogOpened(SharedCatalog.of(host, "ingest", properties(), null), host);
            TableMetadata committed = ((HasTableOperations) table).operations().current();

            guard.catalogClosed(host, Duration.ofSeconds(10));
            host.close();
            // what a commit that returned just before the close queues: a measure of the table's metadata
            long waited = guard.beforeCommit(new TableKey(shared.key(), EVENTS));
            guard.afterCommit(shared, EVENTS, committed, committed, true, waited);
            guard.awaitIdle(Duration.ofSeconds(30));

            assertThat(guard.getErrors()).as("%s", guard.getLastError()).isZero();
            assertThat(shared.instance())
                    .as("no instance of floe's own beside the host's next")
                    .isNull();
            try (JdbcCatalog next = jdbc()) {
                assertThat(guard.catalogOpened(SharedCatalog.of(next, "ingest", properties(), null), next))
                        .isSameAs(shared);
                assertThat(shared.instance()).isSameAs(next);
            }
        } finally {
            guard.close();
        }
    }
}
