package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.FloeStateFile;
import dev.floe.runtime.FloeState;
import dev.floe.runtime.IcebergRebuildCatalog;
import dev.floe.runtime.ReclaimJob;
import dev.floe.runtime.Recovery;
import dev.floe.runtime.SharedCatalog;
import dev.floe.samples.Events;
import dev.floe.samples.IngestSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
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
                        + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1s\n");
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
        int commits = 400;
        int rows = 10;
        Path root = Files.createDirectories(dir.resolve("guarded"));
        Map<String, String> properties = catalogProperties(root);
        String uuid = createTable(properties);

        Jvm.Run run = ingest(root, "db.events", commits, rows);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        Map<String, String> result = run.result();
        // the one handle the ingest loaded at start committed all 400, across every rebuild
        assertThat(result)
                .containsEntry("commits", Integer.toString(commits))
                .containsEntry("handles", "1")
                .containsEntry("rows", Long.toString((long) commits * rows))
                .containsEntry("distinctIds", Long.toString((long) commits * rows));
        assertThat(run.resultLong("historyCollapses")).isPositive();
        // a rebuild runs in the background while commits go on: a few may land past the trigger
        assertThat(run.resultLong("snapshots")).isLessThan(TRIGGER + 30);
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
            assertEveryRowOnce(table, (long) commits * rows);

            // what the agent's reclaim had not run yet when the host exited (the last grace window)
            // is run from the state file, as the next start would
            String key =
                    SharedCatalog.of(catalog, CATALOG_NAME, properties, null).key();
            FloeState records = FloeState.of(state).scoped(key);
            Recovery.run(
                    new IcebergRebuildCatalog(catalog, key, records),
                    Instant.now().plus(Duration.ofHours(1)));
            assertThat(records.entries(ReclaimJob.SECTION)).isEmpty();
            assertThat(records.entries("floe.rebuild"))
                    .as("unfinished rebuilds")
                    .isEmpty();

            table.refresh();
            Set<String> unreferenced = new TreeSet<>(TableFiles.onDisk(root.resolve("warehouse")));
            unreferenced.removeAll(TableFiles.referenced(table));
            assertThat(unreferenced)
                    .as("data files, manifests and manifest lists no metadata references")
                    .allMatch(f -> f.endsWith(".metadata.json"));
            // the metadata files a host commit drops from the table's log are deleted on floe's
            // background thread every metadata-versions commits: the last few may still be there
            List<String> log = ((HasTableOperations) table)
                    .operations().current().previousFiles().stream()
                            .map(e -> TableFiles.localPath(e.file()))
                            .collect(Collectors.toList());
            assertThat(unreferenced)
                    .as("metadata files the log forgot since the last trim, each older than the log")
                    .hasSizeLessThanOrEqualTo(METADATA_VERSIONS)
                    .allMatch(f -> f.compareTo(log.get(0)) < 0);
        } finally {
            ((AutoCloseable) catalog).close();
        }
    }

    @Test
    void aTableFloeTablesDoesNotNameIsNeverRebuilt() throws Exception {
        int commits = 150;
        Path root = Files.createDirectories(dir.resolve("unnamed"));

        Jvm.Run run = ingest(root, "other.*", commits, 5);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt")).as(run.output()).isEmpty();
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.resultLong("snapshots")).isEqualTo(commits);
        assertThat(run.resultLong("historyCollapses")).isZero();
        assertThat(run.resultLong("rows")).isEqualTo(commits * 5L);
        assertThat(root.resolve("floe-state.db"))
                .as("floe keeps no records for a table it does not guard")
                .doesNotExist();
    }

    /** Every row of ids {@code 0 .. rows-1} exactly once, each field as the ingest wrote it. */
    static void assertEveryRowOnce(Table table, long rows) throws Exception {
        BitSet seen = new BitSet();
        List<String> wrong = new ArrayList<>();
        long count = 0;
        GenericRecord template = GenericRecord.create(table.schema());
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                count++;
                long id = (Long) record.getField("id");
                assertThat(id).as("id").isBetween(0L, rows - 1);
                assertThat(seen.get((int) id)).as("id %d twice", id).isFalse();
                seen.set((int) id);
                Record expected = Events.row(template, id);
                for (Types.NestedField field : table.schema().columns()) {
                    Object value = record.getField(field.name());
                    if (!java.util.Objects.equals(value, expected.getField(field.name())) && wrong.size() < 10) {
                        wrong.add(id + "." + field.name() + "=" + value + ", expected "
                                + expected.getField(field.name()));
                    }
                }
            }
        }
        assertThat(wrong).as("fields read back unlike the ingest wrote them").isEmpty();
        assertThat(count).as("rows").isEqualTo(rows);
        assertThat(seen.cardinality()).as("distinct ids, dense from 0").isEqualTo((int) rows);
    }
}
