package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.samples.Events;
import java.io.File;
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
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The REST catalog endpoint end to end, every party its own process: (a) the sample ingest with the
 * agent, {@code floe.rest.port=0}, a token and writes enabled, rebuilding its MapDbCatalog table;
 * (b) Iceberg's own {@code RESTCatalog} client scanning the table with {@code IcebergGenerics} over
 * and over ({@link RestReader}); (c) the sample ingest again, without the agent, appending ids of
 * its own to the same table through {@code RESTCatalog}, so its commits go through the endpoint,
 * into the host's gate. Every process is started and stopped on what the others printed.
 */
class RestEndpointIT {
    static final int TRIGGER = 60;
    static final int ROWS = 10;
    static final String TOKEN = "it-token-7f3a";
    /** (c)'s first id: far above any of (a)'s. */
    static final long OTHER_IDS = 1_000_000_000L;

    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final Duration HANG = Duration.ofMinutes(3);
    /**
     * The host's pace in the first test. Both writers commit optimistically: a REST commit whose base
     * the host moved on meanwhile fails its requirement and the client retries from a refresh. At 50 ms
     * the host moved on during nearly every one of the REST writer's round trips (a refresh, a manifest
     * list, a commit), and a single commit of (c) took up to 30 s of retries; at 250 ms most first
     * tries land, and 60 snapshots still come every 15 s.
     */
    static final int HOST_PACE_MS = 250;

    static final Pattern ENDPOINT = Pattern.compile("serves the Iceberg REST catalog at (http://\\S+/) ");
    static final Predicate<String> REBUILT = l -> l.contains("floe: rebuilt db.events");
    static final Predicate<String> READ = l -> l.startsWith("read snapshot=");

    @TempDir
    Path dir;

    @Test
    void restReadersSeeOneWholeSnapshotEveryTimeAndRestWritesPassTheGate() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path hostCatalog = dir.resolve("catalog.properties");
        Files.writeString(hostCatalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + warehouse + "\n");
        createTable(warehouse);
        Path token = dir.resolve("token");
        Files.writeString(token, TOKEN + "\n");
        Path floe = dir.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1m\n"
                        + "floe.rest.port=0\nfloe.rest.writes=true\nfloe.rest.token-file=" + token + "\n");
        String readerPath = Path.of("target", "test-classes").toAbsolutePath() + File.pathSeparator + Jvm.SAMPLES_JAR;
        Path stopHost = dir.resolve("stop-host");
        Path stopReader = dir.resolve("stop-reader");
        Path stopWriter = dir.resolve("stop-writer");

        Jvm.Run a;
        Jvm.Run b;
        Jvm.Run c;
        int rebuildsWhileRead;
        try (Child host =
                ingest(dir, "host (a)", List.of(Jvm.agentArg(floe)), 0, HOST_PACE_MS, stopHost, hostCatalog)) {
            Matcher started = ENDPOINT.matcher(host.awaitLine(ENDPOINT.asPredicate(), 1, HANG));
            assertThat(started.find()).isTrue();
            String uri = started.group(1);
            assertThat(uri).startsWith("http://127.0.0.1:").doesNotEndWith(":0/");
            host.awaitLine(l -> l.contains("the REST catalog endpoint serves MapDbCatalog"), 1, HANG);
            Path restCatalog = dir.resolve("rest-catalog.properties");
            Files.writeString(
                    restCatalog,
                    "catalog-impl=org.apache.iceberg.rest.RESTCatalog\nuri=" + uri + "\ntoken=" + TOKEN
                            + "\nio-impl=org.apache.iceberg.hadoop.HadoopFileIO\n");
            try (Child reader = Child.java(
                            "reader (b)",
                            dir.resolve("reader.log"),
                            dir,
                            List.of(),
                            readerPath,
                            RestReader.class.getName(),
                            uri,
                            TOKEN,
                            EVENTS.toString(),
                            Long.toString(OTHER_IDS),
                            stopReader.toString());
                    Child writer = ingest(dir, "rest writer (c)", List.of(), OTHER_IDS, 100, stopWriter, restCatalog)) {
                // the REST writer has committed (the reader sees its rows); then floe rebuilds twice more
                try {
                    reader.awaitLine(READ.and(l -> !l.contains(" high=0 ")), 1, HANG);
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "\n" + writer + ":\n" + writer.output(), e);
                }
                int before = host.count(REBUILT);
                host.awaitLine(REBUILT, before + 2, HANG);
                rebuildsWhileRead = host.count(REBUILT) - before;
                // one more read after those rebuilds, then the reader and the REST writer stop
                reader.awaitLine(READ, reader.count(READ) + 1, HANG);
                Files.createFile(stopReader);
                b = reader.await(HANG);
                Files.createFile(stopWriter);
                c = writer.await(HANG);
                Files.createFile(stopHost);
                a = host.await(HANG);
            }
        }

        System.out.println("rebuilds while read: " + rebuildsWhileRead + "\n(a) " + a.result() + "\n(b) " + b.result()
                + "\n(c) " + c.result() + "\n" + String.join("\n", a.lines("floe")));
        assertThat(a.exitCode()).as(a.output()).isZero();
        assertThat(b.exitCode()).as(b.output()).isZero();
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(a.lines("ERROR")).as(a.output()).isEmpty();
        // every read was one whole snapshot: as many rows as its summary says, none twice, never fewer
        // than the read before, the table always found; and reads went on across rebuilds
        assertThat(b.result())
                .as(b.output())
                .containsEntry("inconsistent", "0")
                .containsEntry("duplicates", "0")
                .containsEntry("decreases", "0")
                .containsEntry("notFound", "0")
                .containsEntry("errors", "0");
        assertThat(Long.parseLong(b.result().get("rewritesSeen")))
                .as("the reader read before and after a rebuild")
                .isPositive();
        // each writer finds each of its own rows exactly once at its end, and so does a reader after
        long commitsA = a.resultLong("commits");
        long commitsC = c.resultLong("commits");
        assertThat(commitsC).isPositive();
        assertThat(a.result()).containsEntry("ownRows", Long.toString(commitsA * ROWS));
        assertThat(c.result()).containsEntry("ownRows", Long.toString(commitsC * ROWS));
        List<Long> ids = idsReadBack(warehouse);
        List<Long> expected = new ArrayList<>();
        LongStream.range(0, commitsA * ROWS).forEach(expected::add);
        LongStream.range(OTHER_IDS, OTHER_IDS + commitsC * ROWS).forEach(expected::add);
        assertThat(ids).as("no row twice").doesNotHaveDuplicates();
        assertThat(new TreeSet<>(ids)).as("every row of (a) and (c)").containsExactlyElementsOf(expected);
    }

    /**
     * The host commits once and then idles; every further commit comes over REST. floe rebuilds the
     * table once those pass the trigger: the guard saw them, which it does only for commits that
     * passed its gate ({@code Hooks.afterCommit} observes a commit only when {@code beforeCommit} took
     * the gate).
     */
    @Test
    void commitsOverRestPassTheGateAndAreWatchedLikeTheHostsOwn() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path hostCatalog = dir.resolve("catalog.properties");
        Files.writeString(hostCatalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + warehouse + "\n");
        createTable(warehouse);
        Path floe = dir.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=1s\nfloe.rest.port=0\n"
                        + "floe.rest.writes=true\n");
        int restCommits = TRIGGER + 10;
        Jvm.Run writer;
        try (Child host =
                ingest(dir, "host (a)", List.of(Jvm.agentArg(floe)), 0, 600_000, dir.resolve("stop"), hostCatalog)) {
            Matcher started = ENDPOINT.matcher(host.awaitLine(ENDPOINT.asPredicate(), 1, HANG));
            assertThat(started.find()).isTrue();
            host.awaitLine(l -> l.contains("the REST catalog endpoint serves MapDbCatalog"), 1, HANG);
            Path restCatalog = dir.resolve("rest-catalog.properties");
            Files.writeString(
                    restCatalog,
                    "catalog-impl=org.apache.iceberg.rest.RESTCatalog\nuri=" + started.group(1)
                            + "\nio-impl=org.apache.iceberg.hadoop.HadoopFileIO\n");
            writer = Jvm.run(
                    dir.resolve("writer.log"),
                    List.of("-Dingest.first-id=" + OTHER_IDS, "-Dingest.verify=own"),
                    Jvm.SAMPLES_JAR.toString(),
                    "dev.floe.samples.Ingest",
                    restCatalog.toString(),
                    EVENTS.toString(),
                    Integer.toString(restCommits),
                    Integer.toString(ROWS),
                    "1");
            assertThat(writer.exitCode()).as(writer.output()).isZero();
            assertThat(host.awaitLine(REBUILT, 1, HANG)).contains("snapshots -> 1");
            assertThat(host.output()).doesNotContain("ERROR");
        }
        assertThat(writer.result()).containsEntry("ownRows", Long.toString(restCommits * (long) ROWS));
        List<Long> ids = idsReadBack(warehouse);
        assertThat(ids).doesNotHaveDuplicates();
        assertThat(ids.stream().filter(id -> id >= OTHER_IDS)).hasSize(restCommits * ROWS);
    }

    /**
     * The endpoint holds the catalog file only while the host does: when the host closes its last
     * instance (not before) the endpoint answers 503 and another process can open the file; when the host opens
     * the catalog again it is served again.
     */
    @Test
    void theEndpointLetsTheFileGoWhenTheHostClosesTheCatalogAndServesItWhenReopened() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path control = Files.createDirectories(dir.resolve("control"));
        Path floe = dir.resolve("floe.properties");
        Files.writeString(floe, "floe.rest.port=0\n");
        Predicate<String> serves = l -> l.contains("the REST catalog endpoint serves MapDbCatalog 'host'");
        try (Child host = Child.java(
                "reopening host",
                dir.resolve("host.log"),
                dir,
                List.of(Jvm.agentArg(floe)),
                Path.of("target", "test-classes").toAbsolutePath() + File.pathSeparator + Jvm.SAMPLES_JAR,
                ReopeningHost.class.getName(),
                warehouse.toString(),
                control.toString())) {
            Matcher started = ENDPOINT.matcher(host.awaitLine(ENDPOINT.asPredicate(), 1, HANG));
            assertThat(started.find()).isTrue();
            URI tables = URI.create(started.group(1) + "v1/namespaces/db/tables");
            host.awaitLine(l -> l.equals("opened 1"), 1, HANG);
            host.awaitLine(serves, 1, HANG);
            assertThat(get(tables))
                    .satisfies(r -> assertThat(r.statusCode()).isEqualTo(200))
                    .satisfies(r -> assertThat(r.body()).contains("\"events\""));

            Files.createFile(control.resolve("close"));
            host.awaitLine(l -> l.equals("closed one"), 1, HANG);
            assertThat(get(tables).statusCode())
                    .as("the host still has an instance open")
                    .isEqualTo(200);
            Files.createFile(control.resolve("close-last"));
            host.awaitLine(l -> l.equals("closed"), 1, HANG);
            assertThat(host.output()).contains("the REST catalog endpoint no longer serves MapDbCatalog 'host'");
            assertThat(get(tables).statusCode()).isEqualTo(503);
            try (MapDbCatalog other = open(warehouse)) {
                assertThat(other.listTables(Namespace.of("db"))).containsExactly(EVENTS);
            }

            Files.createFile(control.resolve("reopen"));
            host.awaitLine(l -> l.startsWith("opened 2"), 1, HANG);
            host.awaitLine(serves, 2, HANG);
            assertThat(get(tables).statusCode()).isEqualTo(200);
            Files.createFile(control.resolve("exit"));
            Jvm.Run run = host.await(HANG);
            assertThat(run.exitCode()).as(run.output()).isZero();
            assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        }
    }

    private static HttpResponse<String> get(URI uri) throws Exception {
        return HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(uri).timeout(HANG).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aPortInUseIsOneErrorAndTheHostRunsGuardedWithoutTheEndpoint() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path hostCatalog = dir.resolve("catalog.properties");
        Files.writeString(hostCatalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + warehouse + "\n");
        int commits = 80;
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Path floe = dir.resolve("floe.properties");
            Files.writeString(
                    floe,
                    "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=1s\nfloe.rest.port="
                            + taken.getLocalPort() + "\n");
            Jvm.Run run = Jvm.run(
                    dir.resolve("ingest.log"),
                    List.of(Jvm.agentArg(floe)),
                    Jvm.SAMPLES_JAR.toString(),
                    "dev.floe.samples.Ingest",
                    hostCatalog.toString(),
                    EVENTS.toString(),
                    Integer.toString(commits),
                    "2",
                    "1");
            assertThat(run.exitCode()).as(run.output()).isZero();
            assertThat(run.lines("[floe] ERROR"))
                    .as(run.output())
                    .singleElement()
                    .asString()
                    .contains("floe.rest.port is " + taken.getLocalPort())
                    .contains("choose a free port")
                    .contains("floe guards on without the endpoint");
            assertThat(run.lines("[floe] INFO floe "))
                    .singleElement()
                    .asString()
                    .contains("the REST catalog endpoint is not running");
            assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
            assertThat(run.resultLong("rows")).isEqualTo(commits * 2L);
        }
    }

    static Child ingest(Path dir, String name, List<String> jvm, long firstId, int paceMillis, Path stop, Path catalog)
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
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                catalog.toString(),
                EVENTS.toString(),
                "100000",
                Integer.toString(ROWS),
                "1");
    }

    /** The table, made before the host starts: two writers race for its commits, so Iceberg retries patiently. */
    static void createTable(Path warehouse) throws Exception {
        try (MapDbCatalog catalog = open(warehouse)) {
            catalog.createNamespace(Namespace.of("db"), Map.of());
            catalog.createTable(
                    EVENTS,
                    Events.SCHEMA,
                    PartitionSpec.unpartitioned(),
                    Map.of(
                            TableProperties.COMMIT_NUM_RETRIES, "100",
                            TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "10",
                            TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "200"));
        }
    }

    private static List<Long> idsReadBack(Path warehouse) throws Exception {
        try (MapDbCatalog catalog = open(warehouse)) {
            Table table = catalog.loadTable(EVENTS);
            List<Long> ids = new ArrayList<>();
            try (CloseableIterable<Record> rows =
                    IcebergGenerics.read(table).select("id").build()) {
                rows.forEach(r -> ids.add((Long) r.getField("id")));
            }
            return ids;
        }
    }

    private static MapDbCatalog open(Path warehouse) {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("check", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
        return catalog;
    }
}
