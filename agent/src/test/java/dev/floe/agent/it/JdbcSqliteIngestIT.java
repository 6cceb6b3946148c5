package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.FloeStateFile;
import dev.floe.samples.Events;
import dev.floe.samples.IngestSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample ingest, an ordinary Iceberg program, in a real JVM with the agent, on Iceberg's own
 * {@code JdbcCatalog} over a real SQLite file: a table of a catalog that is not floe's, rebuilt in
 * place when {@code floe.tables} names it, left alone when it does not.
 *
 * <p>One process and one connection ({@code clients=1}): Iceberg 1.10.1's {@code
 * JdbcCatalog.initialize} leaves a metadata {@code ResultSet} open, so on SQLite the catalog's first
 * pooled connection holds a read lock for good, and a second connection to the file (another
 * process, or a second pooled one) cannot write ({@code SQLITE_BUSY}). Several processes on one
 * JDBC catalog are {@link JdbcSharedIT}'s, on H2.
 */
class JdbcSqliteIngestIT {
    static final int TRIGGER = 60;
    /** floe.rebuild.metadata-versions as the agent runs here (its default). */
    static final int METADATA_VERSIONS = 10;

    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final String JDBC_CATALOG = "org.apache.iceberg.jdbc.JdbcCatalog";
    /** The name the sample ingest gives its catalog: a JDBC catalog keys its tables by it. */
    static final String CATALOG_NAME = "ingest";

    @TempDir
    Path dir;

    static Map<String, String> catalogProperties(Path root) {
        return Map.of(
                "catalog-impl",
                JDBC_CATALOG,
                "uri",
                "jdbc:sqlite:" + root.resolve("catalog.db"),
                "warehouse",
                root.resolve("warehouse").toString(),
                "jdbc.schema-version",
                "V1",
                "clients",
                "1");
    }

    /**
     * The ingest's catalog opened in this JVM, by the name the ingest gives it, and with the Hadoop
     * configuration it gives it (Hadoop's checksumming local file system would add .crc files).
     */
    static Catalog open(Map<String, String> properties) {
        return CatalogUtil.loadCatalog(JDBC_CATALOG, CATALOG_NAME, properties, IngestSettings.nioHadoopConf());
    }

    /** The ingest with the agent, in {@code root} (its working directory: floe's state file lands there). */
    private static Jvm.Run ingest(Path root, String floeTables, int commits, int rows) throws Exception {
        Path catalog = root.resolve("catalog.properties");
        Files.writeString(
                catalog,
                catalogProperties(root).entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue() + "\n")
                        .collect(Collectors.joining()));
        Path floe = root.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.tables=" + floeTables + "\nfloe.trigger.snapshots=" + TRIGGER
                        + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1s\nfloe.merge.manifests=15\n");
        try (Child child = Child.java(
                "ingest",
                root.resolve("ingest.log"),
                root,
                List.of(Jvm.agentArg(floe)),
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                catalog.toString(),
                EVENTS.toString(),
                Integer.toString(commits),
                Integer.toString(rows),
                "1")) {
            return child.await(Duration.ofMinutes(5));
        }
    }

    private static String createTable(Map<String, String> properties) throws Exception {
        Catalog catalog = open(properties);
        try {
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
            return catalog.createTable(EVENTS, Events.SCHEMA).uuid().toString();
        } finally {
            // closing it releases its connection, and with it the SQLite read lock it holds
            ((AutoCloseable) catalog).close();
        }
    }

    @Test
    void aGuardedTableIsRebuiltInPlaceAndKeepsEveryRowItsIdentityAndNoLitter() throws Exception {
        int commits = 300;
        int rows = 10;
        Path root = Files.createDirectories(dir.resolve("guarded"));
        Map<String, String> properties = catalogProperties(root);
        String uuid = createTable(properties);

        Jvm.Run run = ingest(root, "db.events", commits, rows);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        // between rebuilds the appends' manifests were merged in place, and left no litter (below)
        assertThat(run.lines("floe: merged the ")).as(run.output()).hasSize(1);
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        Map<String, String> result = run.result();
        // the one handle the ingest loaded at start committed every commit, across every rebuild
        assertThat(result)
                .containsEntry("commits", Integer.toString(commits))
                .containsEntry("handles", "1")
                .containsEntry("rows", Long.toString((long) commits * rows))
                .containsEntry("distinctIds", Long.toString((long) commits * rows));
        assertThat(run.resultLong("rewrites"))
                .as("rebuilds on main, history kept")
                .isPositive();
        // a rebuild runs in the background while commits go on: a few may land past the trigger
        assertThat(run.resultLong("sinceRewrite")).isLessThan(TRIGGER + 30);
        Path stateFile = root.resolve("floe-state.db");
        assertThat(stateFile)
                .as("floe.state.file's default: the working directory")
                .isRegularFile();
        assertThat(root.resolve("floe-state.db.journal"))
                .as("the state file was closed when the host exited (a journal is the sign of a crash)")
                .doesNotExist();

        Catalog catalog = open(properties);
        try (FloeStateFile state = FloeStateFile.open(stateFile)) {
            Table table = catalog.loadTable(EVENTS);
            assertThat(table.uuid().toString())
                    .as("rebuilt in place: the same table")
                    .isEqualTo(uuid);
            IngestRows.assertEveryRowOnce(table, (long) commits * rows);

            TableFiles.assertNoLitterAfterReclaim(
                    catalog, CATALOG_NAME, properties, state, table, root.resolve("warehouse"), METADATA_VERSIONS);
        } finally {
            ((AutoCloseable) catalog).close();
        }
    }

    @Test
    void aTableFloeTablesDoesNotNameIsNeverRebuilt() throws Exception {
        int commits = 100;
        Path root = Files.createDirectories(dir.resolve("unnamed"));

        Jvm.Run run = ingest(root, "other.*", commits, 5);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt")).as(run.output()).isEmpty();
        assertThat(run.lines("floe: merged")).as(run.output()).isEmpty();
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.resultLong("snapshots")).isEqualTo(commits);
        assertThat(run.resultLong("historyCollapses")).isZero();
        assertThat(run.resultLong("rows")).isEqualTo(commits * 5L);
        assertThat(root.resolve("floe-state.db"))
                .as("floe keeps no records for a table it does not guard")
                .doesNotExist();
    }
}
