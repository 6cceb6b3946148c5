package dev.floe.engines.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spark 3.5 Structured Streaming query reading a guarded table across floe's rebuilds, every party
 * its own process: (a) the sample ingest with the agent on an embedded MapDbCatalog, committing 10
 * rows every 100 ms, rebuilt by floe every 60 snapshots with history kept ({@code
 * floe.history.keep=1h}), serving the REST catalog endpoint with a token (in {@link IngestThenHold},
 * which keeps the endpoint up after the ingest stops committing); (b) {@link SparkStreamingReader},
 * {@code spark.readStream().format("iceberg")} through Iceberg's {@code SparkCatalog} on that endpoint
 * into a {@code foreachBatch} sink that writes every row it receives to a file.
 *
 * <p>The query must go on across at least two rebuilds (each one a {@code replace} snapshot between
 * the end offsets of its first and its last batch), never fail, and, once the ingest has stopped and
 * the query has processed all that is available, stand at the last snapshot the host appended and have
 * received every row the host committed exactly once, each field as the table holds it.
 *
 * <p>The history is what it stands on: {@code -Dfloe.it.history.keep=0s} on the command line runs the
 * same test with none kept (not in CI). Run so by hand, the query died at the first rebuild after
 * its first batch, as issue 28 says: {@code StreamingQueryException: Cannot load current offset at
 * snapshot <its end offset>, the snapshot was expired or removed}.
 */
class SparkStreamingReaderIT {
    static final int TRIGGER = 60;
    static final int ROWS = 10;
    static final int PACE_MS = 100;
    static final int REBUILDS = 2;
    static final String TOKEN = "spark-stream-it-token-91d4";
    /** A bound on each wait, for a hang. */
    static final Duration HANG = Duration.ofMinutes(3);
    /** How much history floe keeps: {@code 1h} (the default) unless {@code -Dfloe.it.history.keep} says otherwise. */
    static final String HISTORY_KEEP = System.getProperty("floe.it.history.keep", "1h");

    static final Predicate<String> BATCH = l -> l.startsWith("batch id=");
    static final Predicate<String> FAILED = l -> l.startsWith("stream failed: ");

    @TempDir
    Path dir;

    @Test
    void sparkStreamReadsEveryRowOnceAcrossFloesRebuilds() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        SparkRestReaderIT.createTable(warehouse);
        Path hostCatalog = dir.resolve("catalog.properties");
        Files.writeString(hostCatalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + warehouse + "\n");
        Path token = dir.resolve("token");
        Files.writeString(token, TOKEN + "\n");
        Path floe = dir.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=1s\nfloe.history.keep="
                        + HISTORY_KEEP + "\nfloe.rest.port=0\nfloe.rest.token-file=" + token + "\n");
        Path stopIngest = dir.resolve("stop-ingest");
        Path releaseHost = dir.resolve("release-host");
        Path stopReader = dir.resolve("stop-reader");
        Path received = dir.resolve("received");
        Path logs = Files.createDirectories(Path.of("target", "it-logs").toAbsolutePath());

        long t0 = System.nanoTime();
        Child.Ended a;
        Child.Ended b;
        int rebuildsBefore;
        try (Child host = Child.java(
                "host (a)",
                logs.resolve("spark-streaming-host.log"),
                dir,
                List.of(
                        "-javaagent:" + SparkRestReaderIT.AGENT_JAR + "=" + floe,
                        "-Dingest.pace-ms=" + PACE_MS,
                        "-Dingest.first-id=0",
                        "-Dingest.verify=own",
                        "-Dingest.stop-file=" + stopIngest),
                hostClassPath(),
                IngestThenHold.class.getName(),
                warehouse.toString(),
                releaseHost.toString(),
                hostCatalog.toString(),
                SparkRestReaderIT.EVENTS.toString(),
                "100000",
                Integer.toString(ROWS),
                "1")) {
            Matcher started = SparkRestReaderIT.ENDPOINT.matcher(
                    host.awaitLine(SparkRestReaderIT.ENDPOINT.asPredicate(), 1, HANG));
            assertThat(started.find()).isTrue();
            String uri = started.group(1);
            host.awaitLine(l -> l.contains("the REST catalog endpoint serves MapDbCatalog"), 1, HANG);
            try (Child reader = Child.java(
                    "spark streaming reader (b)",
                    logs.resolve("spark-streaming-reader.log"),
                    dir,
                    Map.of("SPARK_LOCAL_IP", "127.0.0.1", "SPARK_LOCAL_HOSTNAME", "localhost"),
                    SparkRestReaderIT.sparkJvmArgs(dir),
                    SparkRestReaderIT.readerClassPath(),
                    SparkStreamingReader.class.getName(),
                    uri,
                    TOKEN,
                    SparkRestReaderIT.EVENTS.toString(),
                    dir.resolve("checkpoint").toString(),
                    received.toString(),
                    stopReader.toString())) {
                // a query that fails fails here, at its failure, not after the hang bound
                String first = reader.awaitLine(BATCH.or(FAILED), 1, HANG);
                assertThat(first)
                        .as(() -> String.join("\n", reader.lines(l -> true)))
                        .matches(BATCH::test);
                rebuildsBefore = host.count(SparkRestReaderIT.REBUILT);
                System.out.printf("first batch after %d ms: %s%n", millisSince(t0), first);
                // floe rebuilds the table twice more while the query runs, and the query reads on after both
                host.awaitLine(SparkRestReaderIT.REBUILT, rebuildsBefore + REBUILDS, HANG);
                reader.awaitLine(BATCH.or(FAILED), reader.count(BATCH.or(FAILED)) + 2, HANG);
                // the ingest stops committing; the endpoint goes on serving its last table
                Files.createFile(stopIngest);
                host.awaitLine(l -> l.startsWith("host: the ingest ended"), 1, HANG);
                // the query processes all there is, then stops
                Files.createFile(stopReader);
                b = reader.await(HANG);
                Files.createFile(releaseHost);
                a = host.await(HANG);
            }
        }
        System.out.printf(
                "done after %d ms%n(a) %s%n(b) %s%n%s%n",
                millisSince(t0), a.result(), b.result(), String.join("\n", a.lines("floe: rebuilt")));

        assertThat(a.exitCode()).as(a::describe).isZero();
        assertThat(a.lines("ERROR")).as(a::describe).isEmpty();
        assertThat(b.exitCode()).as(b::describe).isZero();
        assertThat(b.lines("stream failed")).as(b::describe).isEmpty();
        assertThat(b.result()).as(b::describe).containsEntry("errors", "0");
        long commits = a.resultLong("commits");
        assertThat(a.result()).as(a::describe).containsEntry("ownRows", Long.toString(commits * ROWS));
        assertThat(a.lines("floe: rebuilt db.events").size())
                .as(a::describe)
                .isGreaterThanOrEqualTo(rebuildsBefore + REBUILDS);

        try (MapDbCatalog catalog = SparkRestReaderIT.open(warehouse)) {
            Table table = catalog.loadTable(SparkRestReaderIT.EVENTS);
            long firstTo = Long.parseLong(b.result().get("firstTo"));
            long lastTo = Long.parseLong(b.result().get("lastTo"));
            // the query stopped at the last snapshot the host appended: nothing after it but floe's replaces
            assertThat(lastTo).as(b::describe).isEqualTo(lastAppend(table).snapshotId());
            // and read on across floe's rebuilds: replace snapshots between its first batch's end and its last
            long replaced = 0;
            for (Snapshot s : SnapshotUtil.ancestorsBetween(table, lastTo, firstTo)) {
                replaced += DataOperations.REPLACE.equals(s.operation()) ? 1 : 0;
            }
            assertThat(replaced).as("rebuilds the query read across").isGreaterThanOrEqualTo(REBUILDS);

            List<String> streamed = receivedRows(received);
            assertThat(streamed.stream().map(SparkStreamingReaderIT::id).toList())
                    .as("each row the host committed, exactly once")
                    .containsExactlyElementsOf(
                            LongStream.range(0, commits * ROWS).boxed().toList());
            assertThat(b.resultLong("rows")).isEqualTo(commits * ROWS);
            assertThat(streamed).as("each row's fields as the table holds them").containsExactlyElementsOf(rows(table));
        }
    }

    /** The samples jar (the ingest and its Iceberg), then this module's test classes ({@link IngestThenHold}). */
    private static String hostClassPath() throws Exception {
        Path testClasses = Path.of(IngestThenHold.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        return SparkRestReaderIT.SAMPLES_JAR + File.pathSeparator + testClasses;
    }

    /** The newest snapshot of {@code main}'s ancestry that appended rows. */
    private static Snapshot lastAppend(Table table) {
        for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
            if (DataOperations.APPEND.equals(s.operation())) {
                return s;
            }
        }
        throw new AssertionError("no append in " + table);
    }

    /** Every line the query's sink wrote, by id. */
    private static List<String> receivedRows(Path received) throws Exception {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(received)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".tsv"))
                    .toList()) {
                lines.addAll(Files.readAllLines(file));
            }
        }
        lines.sort(Comparator.comparingLong(SparkStreamingReaderIT::id));
        return lines;
    }

    /** The table's rows as the sink writes them ({@link SparkStreamingReader}), by id. */
    private static List<String> rows(Table table) throws Exception {
        List<String> lines = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
            for (Record r : rows) {
                lines.add(r.getField("id") + "\t"
                        + ((java.time.OffsetDateTime) r.getField("ts")).toInstant() + "\t" + r.getField("device")
                        + "\t" + r.getField("value") + "\t" + r.getField("payload"));
            }
        }
        lines.sort(Comparator.comparingLong(SparkStreamingReaderIT::id));
        return lines;
    }

    private static long id(String line) {
        return Long.parseLong(line.substring(0, line.indexOf('\t')));
    }

    private static long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
