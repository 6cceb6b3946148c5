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
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample ingest with the agent on Iceberg's {@code HadoopCatalog}, a warehouse on the local file
 * system: a catalog whose commits are file renames, not a database's compare-and-swap, rebuilt in
 * place like any other when {@code floe.tables} names the table.
 *
 * <p>The ingest hands the catalog its default Hadoop configuration ({@code -Dingest.local-fs=nio}:
 * Hadoop's local file system without a forked chmod per file). {@code -Dingest.local-fs=hadoop}
 * passes none, and a HadoopCatalog cannot start without one.
 */
class HadoopCatalogIT {
    static final int TRIGGER = 60;
    static final int METADATA_VERSIONS = 10;
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final String HADOOP_CATALOG = "org.apache.iceberg.hadoop.HadoopCatalog";

    @TempDir
    Path dir;

    @Test
    void aGuardedTableIsRebuiltInPlaceAndKeepsEveryRowItsIdentityAndNoLitter() throws Exception {
        int commits = 300;
        int rows = 10;
        Map<String, String> properties = Map.of(
                "catalog-impl",
                HADOOP_CATALOG,
                "warehouse",
                dir.resolve("warehouse").toString());
        Path catalogFile = dir.resolve("catalog.properties");
        Files.writeString(
                catalogFile,
                properties.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue() + "\n")
                        .collect(Collectors.joining()));
        Path floe = dir.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.tables=db.events\nfloe.trigger.snapshots=" + TRIGGER
                        + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1s\n");
        String uuid;
        Catalog setup = open(properties);
        try {
            uuid = setup.createTable(EVENTS, Events.SCHEMA).uuid().toString();
        } finally {
            ((AutoCloseable) setup).close();
        }

        Jvm.Run run;
        try (Child ingest = Child.java(
                "ingest",
                dir.resolve("ingest.log"),
                dir,
                List.of(Jvm.agentArg(floe)),
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                catalogFile.toString(),
                EVENTS.toString(),
                Integer.toString(commits),
                Integer.toString(rows),
                "1")) {
            run = ingest.await(Duration.ofMinutes(5));
        }

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.result())
                .containsEntry("commits", Integer.toString(commits))
                .containsEntry("handles", "1")
                .containsEntry("rows", Long.toString((long) commits * rows))
                .containsEntry("distinctIds", Long.toString((long) commits * rows));
        assertThat(run.resultLong("rewrites")).isPositive();
        assertThat(run.resultLong("sinceRewrite")).isLessThan(TRIGGER + 30);
        Path stateFile = dir.resolve("floe-state.db");
        assertThat(stateFile).isRegularFile();

        Catalog catalog = open(properties);
        try (FloeStateFile state = FloeStateFile.open(stateFile)) {
            Table table = catalog.loadTable(EVENTS);
            assertThat(table.uuid().toString())
                    .as("rebuilt in place: the same table")
                    .isEqualTo(uuid);
            IngestRows.assertEveryRowOnce(table, (long) commits * rows);
            TableFiles.assertNoLitterAfterReclaim(
                    catalog, "ingest", properties, state, table, dir.resolve("warehouse"), METADATA_VERSIONS);
        } finally {
            ((AutoCloseable) catalog).close();
        }
    }

    /** The catalog as the ingest opens it: its name, its Hadoop configuration. */
    private static Catalog open(Map<String, String> properties) {
        return CatalogUtil.loadCatalog(HADOOP_CATALOG, "ingest", properties, IngestSettings.nioHadoopConf());
    }
}
