package dev.floe.engines.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
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
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.spark.launcher.JavaModuleOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Spark 3.5 as an external reader of a guarded table, every party its own process: (a) the
 * sample ingest with the agent on an embedded MapDbCatalog, committing 10 rows every 100 ms and
 * rebuilt by floe every 60 snapshots, serving the REST catalog endpoint with a token; (b) Spark in
 * local mode ({@link SparkReader}) with Iceberg's {@code SparkCatalog} on that endpoint, querying
 * {@code count(*), count(DISTINCT id), max(id)} over and over while floe rebuilds the table under it.
 * Every read must be one whole snapshot, never fewer rows than the read before, the table always
 * found; the reads must span rebuilds; and at the end the table holds each of the host's rows once.
 */
class SparkRestReaderIT {
    static final int TRIGGER = 60;
    static final int ROWS = 10;
    static final int PACE_MS = 100;
    static final String TOKEN = "spark-it-token-5c1e";
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    /** A bound on each wait, for a hang; the whole test takes about a minute, most of it Spark starting. */
    static final Duration HANG = Duration.ofMinutes(3);

    static final Path AGENT_JAR = Path.of("..", "..", "agent", "target", "floe-agent.jar")
            .toAbsolutePath()
            .normalize();
    static final Path SAMPLES_JAR = Path.of("..", "..", "samples", "target", "floe-samples.jar")
            .toAbsolutePath()
            .normalize();

    static final Pattern ENDPOINT = Pattern.compile("serves the Iceberg REST catalog at (http://\\S+/) ");
    static final Predicate<String> REBUILT = l -> l.contains("floe: rebuilt db.events");
    static final Predicate<String> READ = l -> l.startsWith("read n=");
    static final Predicate<String> READ_FAILED =
            l -> l.startsWith("reader error: ") || l.startsWith("reader found no table: ");
    static final Pattern COUNT = Pattern.compile(" count=(\\d+) ");
    /** The base's rows in a rebuild's line: the files kept as they were, and those rewritten (pruned ones included). */
    static final Pattern BASE_ROWS =
            Pattern.compile("kept \\d+ files of (\\d+) rows as they were, rows (\\d+) \\(pruned (\\d+),");

    @TempDir
    Path dir;

    @Test
    void sparkReadsOneWholeSnapshotEveryTimeWhileFloeRebuildsTheTable() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        createTable(warehouse);
        Path hostCatalog = dir.resolve("catalog.properties");
        Files.writeString(hostCatalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + warehouse + "\n");
        Path token = dir.resolve("token");
        Files.writeString(token, TOKEN + "\n");
        Path floe = dir.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=1s\nfloe.rest.port=0\n"
                        + "floe.rest.token-file=" + token + "\n");
        Path stopHost = dir.resolve("stop-host");
        Path stopReader = dir.resolve("stop-reader");
        Path logs = Files.createDirectories(Path.of("target", "it-logs").toAbsolutePath());

        long t0 = System.nanoTime();
        Child.Ended a;
        Child.Ended b;
        String firstRead;
        String rebuilt;
        String lastRead;
        try (Child host = Child.java(
                "host (a)",
                logs.resolve("spark-reader-host.log"),
                dir,
                List.of(
                        "-javaagent:" + AGENT_JAR + "=" + floe,
                        "-Dingest.pace-ms=" + PACE_MS,
                        "-Dingest.first-id=0",
                        "-Dingest.verify=own",
                        "-Dingest.stop-file=" + stopHost),
                SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                hostCatalog.toString(),
                EVENTS.toString(),
                "100000",
                Integer.toString(ROWS),
                "1")) {
            Matcher started = ENDPOINT.matcher(host.awaitLine(ENDPOINT.asPredicate(), 1, HANG));
            assertThat(started.find()).isTrue();
            String uri = started.group(1);
            host.awaitLine(l -> l.contains("the REST catalog endpoint serves MapDbCatalog"), 1, HANG);
            try (Child reader = Child.java(
                    "spark reader (b)",
                    logs.resolve("spark-reader-spark.log"),
                    dir,
                    // Spark takes the host's name and its first non-loopback address unless told: loopback only
                    Map.of("SPARK_LOCAL_IP", "127.0.0.1", "SPARK_LOCAL_HOSTNAME", "localhost"),
                    sparkJvmArgs(dir),
                    readerClassPath(),
                    SparkReader.class.getName(),
                    uri,
                    TOKEN,
                    EVENTS.toString(),
                    stopReader.toString())) {
                // a reader that fails every query fails here, at its first error, not after the hang bound
                firstRead = reader.awaitLine(READ.or(READ_FAILED), 1, HANG);
                assertThat(firstRead)
                        .as(() -> String.join("\n", reader.lines(l -> true)))
                        .matches(READ::test);
                System.out.printf("first Spark read after %d ms: %s%n", millisSince(t0), firstRead);
                // two rebuilds after that read: the second one's base was pinned after it
                rebuilt = host.awaitLine(REBUILT, host.count(REBUILT) + 2, HANG);
                // two more reads: the second one loaded the table after that rebuild's swap
                lastRead = reader.awaitLine(READ, reader.count(READ) + 2, HANG);
                Files.createFile(stopReader);
                b = reader.await(HANG);
                Files.createFile(stopHost);
                a = host.await(HANG);
            }
        }
        System.out.printf(
                "done after %d ms%n(a) %s%n(b) %s%n%s%n",
                millisSince(t0),
                a.result(),
                b.result(),
                a.lines("floe: rebuilt").stream().collect(Collectors.joining("\n")));

        assertThat(a.exitCode()).as(a::describe).isZero();
        assertThat(b.exitCode()).as(b::describe).isZero();
        assertThat(a.lines("ERROR")).as(a::describe).isEmpty();
        // every read one whole snapshot, never fewer rows than the read before, the table always found
        assertThat(b.resultLong("reads")).as(b::describe).isPositive();
        assertThat(b.result())
                .as(b::describe)
                .containsEntry("decreases", "0")
                .containsEntry("inconsistent", "0")
                .containsEntry("notFound", "0")
                .containsEntry("errors", "0");
        // the reads span a rebuild: the first saw fewer rows than that rebuild's base, the last at least
        // as many (a reader served a stale table, or no longer reading, fails here)
        long base = baseRows(rebuilt);
        assertThat(count(firstRead)).as(b::describe).isLessThan(base);
        assertThat(count(lastRead)).as(b::describe).isGreaterThanOrEqualTo(base);
        // the host's own check, then ours: each of its ids 0 .. commits*10-1 exactly once
        long commits = a.resultLong("commits");
        assertThat(a.result()).as(a::describe).containsEntry("ownRows", Long.toString(commits * ROWS));
        List<Long> ids = idsReadBack(warehouse);
        assertThat(ids).as("no row twice").doesNotHaveDuplicates();
        assertThat(new TreeSet<>(ids))
                .as("every row the host wrote")
                .containsExactlyElementsOf(
                        LongStream.range(0, commits * ROWS).boxed().toList());
    }

    /**
     * What Spark's launcher gives a Java 17 JVM (its {@code JavaModuleOptions}), a heap, and a temporary
     * directory in the test's (Spark's scratch space, {@code spark.local.dir}, defaults to it). The JIT
     * stops at C1 and the collector is the serial one: Spark's start and first queries are class
     * loading and cold code, and on two cores shared with the host and its rebuilds C2's compiler
     * threads only compete with them (in runs here, later reads took about half as long).
     */
    static List<String> sparkJvmArgs(Path dir) throws Exception {
        List<String> args =
                new ArrayList<>(List.of(JavaModuleOptions.defaultModuleOptions().split("\\s+")));
        args.add("-Xmx1g");
        args.add("-XX:TieredStopAtLevel=1");
        args.add("-XX:+UseSerialGC");
        args.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("spark-tmp")));
        return args;
    }

    /**
     * This JVM's class path (Spark, Iceberg's Spark runtime, this module's test classes, the catalog
     * the test reads back through) less the agent's jar, there only to order the build: the reader
     * knows nothing of floe.
     */
    static String readerClassPath() {
        Path agentModule = AGENT_JAR.getParent().getParent();
        return List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
                .filter(entry -> !entry.isBlank())
                .filter(entry -> {
                    Path p = Path.of(entry).toAbsolutePath().normalize();
                    return !p.startsWith(agentModule)
                            && !p.getFileName().toString().startsWith("floe-agent");
                })
                .collect(Collectors.joining(File.pathSeparator));
    }

    /**
     * The table, made before either process starts, so Spark's first query finds it, with or without
     * rows. Its columns are the sample's ({@code dev.floe.samples.Events.SCHEMA}), whose rows the host
     * writes by these names; the samples jar is not on this class path (see the pom).
     */
    static void createTable(Path warehouse) throws Exception {
        Schema events = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
                Types.NestedField.optional(3, "device", Types.StringType.get()),
                Types.NestedField.optional(4, "value", Types.DoubleType.get()),
                Types.NestedField.optional(5, "payload", Types.StringType.get()));
        try (MapDbCatalog catalog = open(warehouse)) {
            catalog.createNamespace(Namespace.of("db"), Map.of());
            catalog.createTable(EVENTS, events, PartitionSpec.unpartitioned());
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

    static MapDbCatalog open(Path warehouse) {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("check", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
        return catalog;
    }

    private static long count(String readLine) {
        Matcher m = COUNT.matcher(readLine);
        assertThat(m.find()).as(readLine).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static long baseRows(String rebuiltLine) {
        Matcher m = BASE_ROWS.matcher(rebuiltLine);
        assertThat(m.find()).as(rebuiltLine).isTrue();
        return Long.parseLong(m.group(1)) + Long.parseLong(m.group(2)) + Long.parseLong(m.group(3));
    }

    private static long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
