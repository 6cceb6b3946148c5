package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.samples.Events;
import dev.floe.samples.TableFacts;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample ingest on a REST catalog, with the agent attached: the server is Iceberg's own REST
 * catalog fixture ({@code org.apache.iceberg.rest.RESTCatalogServer} of iceberg-open-api's test
 * fixtures, over a JDBC catalog on SQLite) in a JVM of its own, the ingest commits through
 * Iceberg's {@code RESTCatalog}, and client and server share the local warehouse directory. floe
 * rebuilds the table in place through the table's own REST operations; the rows are read back
 * through a fresh {@code RESTCatalog} after the ingest has exited.
 */
class RestCatalogIT {
    static final int TRIGGER = 60;
    static final int ROWS = 10;
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final String SERVER_MAIN = "org.apache.iceberg.rest.RESTCatalogServer";
    /** How long the server may take to answer its first request. */
    static final Duration SERVER_START = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Process server;
    private String uri;

    /**
     * The fixture takes its backing catalog's properties from {@code CATALOG_*} environment variables
     * ({@code RCKUtils.environmentCatalogConfig}: {@code CATALOG_REST_PORT} is {@code rest.port}). Its
     * default backing catalog is a JdbcCatalog on {@code jdbc:sqlite::memory:}, where each pooled
     * connection would be a database of its own: one client ({@code clients=1}) keeps every request on
     * the one database.
     */
    @BeforeEach
    void startServer() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        ProcessBuilder builder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        SERVER_MAIN)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile());
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("CATALOG_"));
        env.put("CATALOG_REST_PORT", Integer.toString(port));
        env.put("CATALOG_WAREHOUSE", dir.resolve("warehouse").toString());
        env.put("CATALOG_CLIENTS", "1");
        server = builder.start();
        uri = "http://localhost:" + port;
        awaitServing();
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Polls {@code GET /v1/config} until the server answers, it exits, or the time is up. */
    private void awaitServing() throws Exception {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest config = HttpRequest.newBuilder(URI.create(uri + "/v1/config"))
                .timeout(Duration.ofSeconds(5))
                .build();
        long deadline = System.nanoTime() + SERVER_START.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(config, HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            // between two tries, wait for the server to die rather than for nothing
            if (server.waitFor(100, TimeUnit.MILLISECONDS)) {
                throw new AssertionError(
                        "the REST catalog server exited with " + server.exitValue() + ":\n" + serverLog());
            }
        }
        throw new AssertionError("the REST catalog server did not answer in " + SERVER_START + ":\n" + serverLog());
    }

    private String serverLog() throws IOException {
        return Files.readString(dir.resolve("server.log"));
    }

    private Jvm.Run ingest(String guarded, int commits) throws Exception {
        return ingest(guarded, commits, "");
    }

    private Jvm.Run ingest(String guarded, int commits, String moreSettings) throws Exception {
        Path catalog = dir.resolve("catalog.properties");
        Files.writeString(catalog, "catalog-impl=org.apache.iceberg.rest.RESTCatalog\nuri=" + uri + "\n");
        Path floe = dir.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.tables=" + guarded + "\nfloe.trigger.snapshots=" + TRIGGER
                        + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1s\nfloe.state.file="
                        + dir.resolve("floe-state.db") + "\n" + moreSettings);
        Jvm.Run run = Jvm.run(
                dir.resolve("ingest.log"),
                List.of(Jvm.agentArg(floe)),
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                catalog.toString(),
                EVENTS.toString(),
                Integer.toString(commits),
                Integer.toString(ROWS),
                "1");
        assertThat(server.isAlive())
                .as("the server outlives the ingest:\n" + serverLog())
                .isTrue();
        return run;
    }

    /** The table as a fresh REST catalog client sees it: its UUID, snapshots and rows by id. */
    private record ReadBack(
            String uuid, int snapshots, int sinceRewrite, TreeMap<Long, Record> rows, List<Long> duplicates) {}

    /** A REST catalog client of the test's own, in this JVM. */
    private RESTCatalog client(String name) {
        RESTCatalog catalog = new RESTCatalog();
        catalog.setConf(new org.apache.hadoop.conf.Configuration());
        catalog.initialize(name, Map.of(CatalogProperties.URI, uri));
        return catalog;
    }

    /** Creates the ingest's table as the ingest would (it then loads it); returns its UUID. */
    private String createTable() throws IOException {
        try (RESTCatalog catalog = client("create")) {
            catalog.createNamespace(EVENTS.namespace());
            return catalog.createTable(EVENTS, Events.SCHEMA, PartitionSpec.unpartitioned())
                    .uuid()
                    .toString();
        }
    }

    private ReadBack readBack() throws Exception {
        RESTCatalog catalog = client("check");
        try (catalog) {
            Table table = catalog.loadTable(EVENTS);
            TreeMap<Long, Record> rows = new TreeMap<>();
            List<Long> duplicates = new ArrayList<>();
            try (CloseableIterable<Record> read = IcebergGenerics.read(table).build()) {
                for (Record row : read) {
                    Long id = (Long) row.getField("id");
                    if (rows.put(id, row.copy()) != null) {
                        duplicates.add(id);
                    }
                }
            }
            int snapshots = 0;
            for (Object ignored : table.snapshots()) {
                snapshots++;
            }
            int sinceRewrite = dev.floe.samples.TableFacts.rewrites(table).sinceRewrite();
            return new ReadBack(table.uuid().toString(), snapshots, sinceRewrite, rows, duplicates);
        }
    }

    /** Every id from 0 to {@code expected - 1} exactly once, each row as the ingest wrote it, field by field. */
    private static void assertEveryRowOnceAsWritten(ReadBack back, long expected) {
        assertThat(back.duplicates()).as("ids read more than once").isEmpty();
        assertThat(back.rows()).hasSize((int) expected);
        assertThat(back.rows().firstKey()).isZero();
        assertThat(back.rows().lastKey()).isEqualTo(expected - 1);
        GenericRecord template = GenericRecord.create(Events.SCHEMA);
        for (Map.Entry<Long, Record> entry : back.rows().entrySet()) {
            Record written = Events.row(template, entry.getKey());
            for (Types.NestedField field : Events.SCHEMA.columns()) {
                assertThat(entry.getValue().getField(field.name()))
                        .as("field %s of id %d", field.name(), entry.getKey())
                        .isEqualTo(written.getField(field.name()));
            }
        }
    }

    @Test
    void aRestCatalogTableIsRebuiltInPlaceAndLosesNothing() throws Exception {
        int commits = 5 * TRIGGER; // five rebuilds
        String created = createTable();
        Jvm.Run run = ingest("db.events", commits);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("[floe] INFO guarding Iceberg "))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("RESTTableOperations")
                .contains("RESTCatalog");
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        // the handle the ingest loaded at start committed all along, and saw its history shrink
        assertThat(run.resultLong("rewrites")).as(run.output()).isPositive();
        // ... and never had a commit refused: after each rebuild its next commit built on the rebuilt
        // table, and each install matched the table it read under the gate (the server logs every
        // error it answers; the ingest's own retries are not logged)
        assertThat(serverLog()).doesNotContain("CommitFailedException");
        assertThat(run.resultLong("rows")).isEqualTo(commits * (long) ROWS);
        assertThat(run.resultLong("distinctIds")).isEqualTo(commits * (long) ROWS);
        // a rebuild runs in the background while commits go on: a few commits may land past the trigger
        assertThat(run.resultLong("sinceRewrite")).as(run.output()).isLessThan(TRIGGER + 30);

        ReadBack back = readBack();
        assertThat(back.sinceRewrite()).as("snapshots since the last rebuild").isLessThan(TRIGGER + 30);
        assertEveryRowOnceAsWritten(back, commits * (long) ROWS);
        assertThat(back.uuid())
                .as("rebuilt in place: the table the server created, not a new one")
                .isEqualTo(created);
    }

    /**
     * With history kept, each in-place rebuild goes through the REST server as Iceberg's own updates
     * (remove the snapshots outside the window, add the rebuilt one with the head as its parent, move
     * {@code main}): every host commit stays on {@code main}, each rebuilt snapshot is a {@code replace}
     * on top of the one before it, and every row is there once.
     */
    @Test
    void aRestCatalogTableKeepsItsHistoryAcrossInPlaceRebuilds() throws Exception {
        int commits = 3 * TRIGGER;
        createTable();
        Jvm.Run run = ingest("db.events", commits, "floe.history.keep=1h\n");

        assertThat(run.exitCode()).as(run.output()).isZero();
        List<String> rebuilt = run.lines("floe: rebuilt db.events");
        assertThat(rebuilt).as(run.output()).hasSizeGreaterThanOrEqualTo(2);
        assertThat(rebuilt).allSatisfy(line -> assertThat(line).contains(" kept, "));
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(serverLog()).doesNotContain("CommitFailedException");

        ReadBack back = readBack();
        assertThat(back.snapshots())
                .as("every host commit and every rebuilt snapshot")
                .isEqualTo(commits + rebuilt.size());
        assertEveryRowOnceAsWritten(back, commits * (long) ROWS);
    }

    /**
     * Old versions rewritten onto the rebuilt files ({@code floe.history.rewrite-after=0s}) go through
     * the REST server as Iceberg's own updates too: each rewritten snapshot removed and added again
     * without a parent. Every version reads back by id with the rows it had.
     */
    @Test
    void aRestCatalogTablesOldVersionsAreRewrittenOntoTheRebuiltFiles() throws Exception {
        int commits = 3 * TRIGGER;
        createTable();
        Jvm.Run run = ingest("db.events", commits, "floe.history.keep=1h\nfloe.history.rewrite-after=0s\n");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        assertThat(run.lines("rewrites ")).as(run.output()).isNotEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(serverLog()).doesNotContain("CommitFailedException");

        try (RESTCatalog catalog = client("versions")) {
            TableFacts.Versions versions = TableFacts.versions(catalog.loadTable(EVENTS));
            assertThat(versions.rewritten()).isPositive();
            assertThat(versions.exact()).isEqualTo(versions.versions());
        }
        assertEveryRowOnceAsWritten(readBack(), commits * (long) ROWS);
    }

    @Test
    void aRestCatalogTableThatFloeTablesDoesNotNameIsNeverRebuilt() throws Exception {
        int commits = 2 * TRIGGER;
        Jvm.Run run = ingest("db.other", commits);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt")).as(run.output()).isEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(run.resultLong("snapshots")).isEqualTo(commits);
        assertThat(run.resultLong("historyCollapses")).isZero();
        assertThat(serverLog()).doesNotContain("CommitFailedException");

        ReadBack back = readBack();
        assertThat(back.snapshots()).isEqualTo(commits);
        assertEveryRowOnceAsWritten(back, commits * (long) ROWS);
    }
}
