package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.samples.Events;
import dev.floe.samples.IngestSettings;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One table of Iceberg's {@code JdbcCatalog} shared by processes, on an H2 database server (its own
 * process): (a) the sample ingest with the agent, rebuilding the table in place; (b) the sample
 * ingest again, without the agent, appending ids of its own to the same table through the same
 * catalog while (a) rebuilds; (c) a reader reading every id over and over. Every process is
 * started, and stopped, on what the others printed, never after a sleep.
 */
class JdbcSharedIT {
    static final int TRIGGER = 60;
    static final int ROWS = 10;
    /** (b)'s first id: far above any id of (a)'s. */
    static final long OTHER_IDS = 1_000_000_000L;

    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final Duration HANG = Duration.ofMinutes(3);
    static final Predicate<String> REBUILT = l -> l.contains("floe: rebuilt db.events");
    static final Predicate<String> READ = l -> l.startsWith("read rows=");

    @TempDir
    Path dir;

    @Test
    void aRebuildingIngestAnotherWritersAppendsAndAReaderLoseAndSeeNothingTwice() throws Exception {
        Path h2 = Path.of(org.h2.Driver.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        try (Child server = Child.java(
                "H2 server",
                dir.resolve("h2.log"),
                dir,
                List.of(),
                h2.toString(),
                "org.h2.tools.Server",
                "-tcp",
                "-tcpPort",
                "0",
                "-baseDir",
                dir.resolve("h2").toString(),
                "-ifNotExists")) {
            Matcher running = Pattern.compile("TCP server running at tcp://[^:]+:(\\d+)")
                    .matcher(server.awaitLine(l -> l.contains("TCP server running at"), 1, HANG));
            assertThat(running.find()).isTrue();
            // DATABASE_TO_LOWER: JdbcCatalog's schema check reads lower-case column names
            Map<String, String> properties = Map.of(
                    "catalog-impl",
                    "org.apache.iceberg.jdbc.JdbcCatalog",
                    "uri",
                    "jdbc:h2:tcp://localhost:" + running.group(1) + "/catalog;DATABASE_TO_LOWER=TRUE",
                    "warehouse",
                    dir.resolve("warehouse").toString(),
                    "jdbc.schema-version",
                    "V1");
            Path catalogFile = dir.resolve("catalog.properties");
            Files.writeString(
                    catalogFile,
                    properties.entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue() + "\n")
                            .collect(Collectors.joining()));
            // metadata-versions: floe deletes a metadata file once the table's log forgets it, that
            // many commits after it was current. Two writers here commit some 15 times a second, and
            // a reader reads a table's pointer, then its metadata file: a reader JVM just started, on
            // a loaded machine, took longer than the default 10 commits between the two (and found
            // the file gone). At this rate 100 commits give it seconds, as 10 do at a few a second.
            // The grace is long for the same reader: files a rebuild retires are deleted once it has
            // passed, and a scan that outlasts it, of a table loaded before the swap, finds them gone
            // (as docs/rest-endpoint.md says). On a loaded machine (load 10 on 2 cores) one read of the tiny
            // files took longer than the 5 s this had.
            Path floe = dir.resolve("floe.properties");
            Files.writeString(
                    floe,
                    "floe.tables=db.events\nfloe.trigger.snapshots=" + TRIGGER
                            + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1m\nfloe.rebuild.metadata-versions=100"
                            + "\nfloe.state.file=" + dir.resolve("floe-state.db") + "\n");
            createTable(properties);
            String hostPath = Jvm.SAMPLES_JAR + File.pathSeparator + h2;
            String readerPath = Path.of("target", "test-classes").toAbsolutePath() + File.pathSeparator + hostPath;
            Path stopA = dir.resolve("stop-a");
            Path stopB = dir.resolve("stop-b");
            Path stopC = dir.resolve("stop-c");

            Jvm.Run a;
            Jvm.Run b;
            Jvm.Run c;
            int rebuildsBesideB;
            try (Child ingest =
                    ingest("ingest (a)", List.of(Jvm.agentArg(floe)), 0, 50, stopA, hostPath, catalogFile)) {
                ingest.awaitLine(REBUILT, 1, HANG);
                try (Child other = ingest("writer (b)", List.of(), OTHER_IDS, 100, stopB, hostPath, catalogFile);
                        Child reader = Child.java(
                                "reader (c)",
                                dir.resolve("reader.log"),
                                dir,
                                List.of(),
                                readerPath,
                                SharedReader.class.getName(),
                                catalogFile.toString(),
                                "ingest",
                                EVENTS.toString(),
                                Long.toString(OTHER_IDS),
                                stopC.toString())) {
                    // (b) has committed once (the reader sees its rows); then (a) rebuilds twice more
                    reader.awaitLine(READ.and(l -> !l.contains(" high=0 ")), 1, HANG);
                    rebuildsBesideB = ingest.count(REBUILT);
                    ingest.awaitLine(REBUILT, rebuildsBesideB + 2, HANG);
                    rebuildsBesideB = ingest.count(REBUILT) - rebuildsBesideB;
                    Files.createFile(stopA);
                    Files.createFile(stopB);
                    a = ingest.await(HANG);
                    b = other.await(HANG);
                    // two more reads once both writers are done: the second began after they ended and
                    // sees every row
                    reader.awaitLine(READ, reader.count(READ) + 2, HANG);
                    Files.createFile(stopC);
                    c = reader.await(HANG);
                }
            }

            // for the record (failsafe keeps it in the test's output file)
            System.out.println("rebuilds while (b) appended, before it was stopped: " + rebuildsBesideB + "\n(a) "
                    + a.result() + "\n(b) " + b.result() + "\n(c) " + c.result() + "\n"
                    + String.join("\n", a.lines("floe:")) + "\n" + String.join("\n", a.lines("WARN")));
            assertThat(a.exitCode()).as(a.output()).isZero();
            assertThat(b.exitCode()).as(b.output()).isZero();
            assertThat(c.exitCode()).as(c.output()).isZero();
            assertThat(a.lines("ERROR")).as(a.output()).isEmpty();
            assertThat(b.lines("[floe]")).as("(b) runs without the agent").isEmpty();
            long commitsA = a.resultLong("commits");
            long commitsB = b.resultLong("commits");
            assertThat(commitsB).isPositive();
            // each writer finds each of its own rows exactly once at its end ...
            assertThat(a.result()).containsEntry("ownRows", Long.toString(commitsA * ROWS));
            assertThat(b.result()).containsEntry("ownRows", Long.toString(commitsB * ROWS));
            // ... and so does a reader after both ended: no commit of either is lost
            List<Long> ids = idsReadBack(properties);
            List<Long> expected = new ArrayList<>();
            LongStream.range(0, commitsA * ROWS).forEach(expected::add);
            LongStream.range(OTHER_IDS, OTHER_IDS + commitsB * ROWS).forEach(expected::add);
            assertThat(ids).as("no row twice").doesNotHaveDuplicates();
            assertThat(new TreeSet<>(ids)).as("every row of (a) and (b)").containsExactlyElementsOf(expected);
            // the reader never saw rows vanish, nor one twice, and at last saw them all
            assertThat(c.result())
                    .as(c.output())
                    .containsEntry("decreases", "0")
                    .containsEntry("duplicates", "0")
                    .containsEntry("errors", "0")
                    .containsEntry("maxRows", Integer.toString(expected.size()));
        }
    }

    /**
     * The sample ingest, committing at most every {@code paceMillis} (writers that commit back to back
     * from two processes make one of them lose almost every race: plain Iceberg contention).
     */
    private Child ingest(
            String name, List<String> jvm, long firstId, int paceMillis, Path stop, String classPath, Path catalog)
            throws Exception {
        List<String> options = new ArrayList<>(jvm);
        options.add("-Dingest.pace-ms=" + paceMillis);
        options.add("-Dingest.first-id=" + firstId);
        options.add("-Dingest.verify=own");
        options.add("-Dingest.stop-file=" + stop);
        return Child.java(
                name,
                dir.resolve(name.replaceAll("\\W+", "-") + ".log"),
                dir,
                options,
                classPath,
                "dev.floe.samples.Ingest",
                catalog.toString(),
                EVENTS.toString(),
                "100000",
                Integer.toString(ROWS),
                "1");
    }

    /**
     * The table, made before any process runs: two processes race for many of its commits, so
     * Iceberg retries them patiently, as such hosts would configure it.
     */
    private static void createTable(Map<String, String> properties) throws Exception {
        Catalog catalog = CatalogUtil.loadCatalog(
                properties.get("catalog-impl"), "ingest", properties, IngestSettings.nioHadoopConf());
        try {
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
            catalog.createTable(
                    EVENTS,
                    Events.SCHEMA,
                    PartitionSpec.unpartitioned(),
                    Map.of(
                            TableProperties.COMMIT_NUM_RETRIES, "100",
                            TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "10",
                            TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "200"));
        } finally {
            ((AutoCloseable) catalog).close();
        }
    }

    /** Every id in the table, read through a catalog of this JVM after the writers ended. */
    private static List<Long> idsReadBack(Map<String, String> properties) throws Exception {
        Catalog catalog = CatalogUtil.loadCatalog(
                properties.get("catalog-impl"), "ingest", properties, IngestSettings.nioHadoopConf());
        try {
            Table table = catalog.loadTable(EVENTS);
            List<Long> ids = new ArrayList<>();
            try (CloseableIterable<Record> rows =
                    IcebergGenerics.read(table).select("id").build()) {
                rows.forEach(r -> ids.add((Long) r.getField("id")));
            }
            return ids;
        } finally {
            ((AutoCloseable) catalog).close();
        }
    }
}
