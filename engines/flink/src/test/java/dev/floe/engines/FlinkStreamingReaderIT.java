package dev.floe.engines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Flink 1.20 reading a guarded table as a stream across floe's rebuilds, every party its own
 * process: (a) the sample ingest with the agent on an embedded MapDbCatalog, committing 10 rows
 * every 100 ms, rebuilt by floe every 60 snapshots with history kept ({@code floe.history.keep=1h}),
 * serving the REST catalog endpoint with a token ({@link IngestThenHold} keeps the endpoint up after
 * the ingest stops committing); (b) {@link FlinkStreamingReader}: a job in a local MiniCluster with
 * Iceberg's {@code IcebergSource} in streaming mode from the earliest snapshot, through Iceberg's
 * {@code RESTCatalog} on that endpoint, no restart and no scan planning failure allowed.
 *
 * <p>The source must go on across at least two rebuilds (each one a {@code replace} snapshot between
 * its enumerator's first position and its last), the job must never fail, and once the ingest has
 * stopped, the source must have enumerated up to the last snapshot the host appended and the job
 * received every row the host committed exactly once, each field as the table holds it.
 *
 * <p>{@code -Dfloe.it.history.keep=0s} on the command line runs the same test with no history kept
 * (not in CI). Run so by hand, the job failed at the first rebuild after the source's first scan, as
 * issue 28 says: {@code Failed to discover new splits <- IllegalArgumentException: Starting snapshot
 * (exclusive) <its position> is not a parent ancestor of end snapshot <the rebuilt one>}.
 */
class FlinkStreamingReaderIT {
    static final int TRIGGER = 60;
    static final int ROWS = 10;
    static final int PACE_MS = 100;
    static final int REBUILDS = 2;
    static final String TOKEN = "flink-stream-it-token-3b07";
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    /** A bound on each wait, for a hang. */
    static final Duration HANG = Duration.ofMinutes(3);
    /** How much history floe keeps: {@code 1h} (the default) unless {@code -Dfloe.it.history.keep} says otherwise. */
    static final String HISTORY_KEEP = System.getProperty("floe.it.history.keep", "1h");

    static final Path SAMPLES_JAR = Path.of("..", "..", "samples", "target", "floe-samples.jar")
            .toAbsolutePath()
            .normalize();
    static final Pattern ENDPOINT = Pattern.compile("serves the Iceberg REST catalog at (http://\\S+/) ");
    static final Predicate<String> REBUILT = l -> l.contains("floe: rebuilt db.events");
    static final Predicate<String> RECEIVED = l -> l.startsWith("received rows=");
    static final Predicate<String> FAILED = l -> l.startsWith("job failed: ");
    static final Pattern COMMITS = Pattern.compile("^RESULT .*\\bcommits=(\\d+)\\b");
    /** The source enumerator's position after each scan it planned ({@code ContinuousIcebergEnumerator}). */
    static final Pattern POSITION =
            Pattern.compile("Update enumerator position to IcebergEnumeratorPosition\\{snapshotId=(-?\\d+),");

    @TempDir
    Path dir;

    @Test
    void icebergSourceStreamsEveryRowOnceAcrossFloesRebuilds() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        createTable(warehouse);
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
        Path received = dir.resolve("received.tsv");
        Path logs = Files.createDirectories(Path.of("target", "it-logs").toAbsolutePath());

        long t0 = System.nanoTime();
        Child.Ended a;
        Child.Ended b;
        int rebuildsBefore;
        long commits;
        try (Child host = Child.java(
                "host (a)",
                logs.resolve("flink-streaming-host.log"),
                dir,
                List.of(
                        ChildJvm.agentArg(floe),
                        "-Dingest.pace-ms=" + PACE_MS,
                        "-Dingest.first-id=0",
                        "-Dingest.verify=own",
                        "-Dingest.stop-file=" + stopIngest),
                hostClassPath(),
                IngestThenHold.class.getName(),
                warehouse.toString(),
                releaseHost.toString(),
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
                    "flink streaming reader (b)",
                    logs.resolve("flink-streaming-reader.log"),
                    dir,
                    readerJvmArgs(),
                    ChildJvm.hostClassPath(),
                    FlinkStreamingReader.class.getName(),
                    uri,
                    TOKEN,
                    EVENTS.toString(),
                    stopReader.toString(),
                    received.toString())) {
                // a job that fails fails here, at its failure, not after the hang bound
                String first = reader.awaitLine(RECEIVED.or(FAILED), 1, HANG);
                assertThat(first)
                        .as(() -> String.join("\n", reader.lines(l -> true)))
                        .matches(RECEIVED::test);
                rebuildsBefore = host.count(REBUILT);
                System.out.printf("first rows after %d ms: %s%n", millisSince(t0), first);
                // floe rebuilds the table twice more while the job runs, and the job receives rows after both
                host.awaitLine(REBUILT, rebuildsBefore + REBUILDS, HANG);
                reader.awaitLine(RECEIVED.or(FAILED), reader.count(RECEIVED.or(FAILED)) + 2, HANG);
                // the ingest stops committing; the endpoint goes on serving its last table
                Files.createFile(stopIngest);
                Matcher result = COMMITS.matcher(host.awaitLine(COMMITS.asPredicate(), 1, HANG));
                assertThat(result.find()).isTrue();
                commits = Long.parseLong(result.group(1));
                host.awaitLine(l -> l.startsWith("host: the ingest ended"), 1, HANG);
                // the reader catches up to every row the host committed, then cancels its job
                Path partial = dir.resolve("stop-reader.partial");
                Files.writeString(partial, Long.toString(commits * ROWS));
                Files.move(partial, stopReader, StandardCopyOption.ATOMIC_MOVE);
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
        assertThat(a.resultLong("commits")).isEqualTo(commits);
        assertThat(a.result()).as(a::describe).containsEntry("ownRows", Long.toString(commits * ROWS));
        assertThat(a.lines("floe: rebuilt db.events").size())
                .as(a::describe)
                .isGreaterThanOrEqualTo(rebuildsBefore + REBUILDS);
        assertThat(b.exitCode()).as(b::describe).isZero();
        assertThat(b.lines("job failed")).as(b::describe).isEmpty();
        assertThat(b.lines("Failed to discover new splits")).as(b::describe).isEmpty();
        assertThat(b.result())
                .as(b::describe)
                .containsEntry("status", "RUNNING")
                .containsEntry("errors", "0");

        List<Long> positions = new ArrayList<>();
        for (String line : b.lines("Update enumerator position to")) {
            Matcher m = POSITION.matcher(line);
            if (m.find()) {
                positions.add(Long.parseLong(m.group(1)));
            }
        }
        assertThat(positions).as(b::describe).isNotEmpty();
        try (MapDbCatalog catalog = open(warehouse)) {
            Table table = catalog.loadTable(EVENTS);
            long firstPosition = positions.get(0);
            long lastPosition = positions.get(positions.size() - 1);
            // the source enumerated up to the last snapshot the host appended (or a rebuild on top of it)
            Snapshot lastAppend = lastAppend(table);
            assertThat(lastAppend.snapshotId() == lastPosition
                            || SnapshotUtil.isAncestorOf(table, lastPosition, lastAppend.snapshotId()))
                    .as("enumerated up to snapshot %s, the last append is %s", lastPosition, lastAppend.snapshotId())
                    .isTrue();
            // and across floe's rebuilds: replace snapshots between its first position and its last
            long replaced = 0;
            for (Snapshot s : SnapshotUtil.ancestorsBetween(table, lastPosition, firstPosition)) {
                replaced += DataOperations.REPLACE.equals(s.operation()) ? 1 : 0;
            }
            assertThat(replaced).as("rebuilds the source read across").isGreaterThanOrEqualTo(REBUILDS);

            List<String> streamed = new ArrayList<>(Files.readAllLines(received));
            streamed.sort(Comparator.comparingLong(FlinkStreamingReaderIT::id));
            assertThat(streamed.stream().map(FlinkStreamingReaderIT::id).toList())
                    .as("each row the host committed, exactly once")
                    .containsExactlyElementsOf(
                            LongStream.range(0, commits * ROWS).boxed().toList());
            assertThat(streamed).as("each row's fields as the table holds them").containsExactlyElementsOf(rows(table));
        }
    }

    /** Flink's flags for Java 17, a heap, and the source enumerator's planning at info. */
    private static List<String> readerJvmArgs() {
        List<String> args = new ArrayList<>(ChildJvm.FLINK_JAVA17_FLAGS);
        args.add("-Xmx1g");
        args.add("-Dorg.slf4j.simpleLogger.log.org.apache.iceberg.flink.source.enumerator.ContinuousIcebergEnumerator="
                + "info");
        return args;
    }

    /** The samples jar (the ingest and its Iceberg), then this module's test classes ({@link IngestThenHold}). */
    private static String hostClassPath() throws Exception {
        Path testClasses = Path.of(IngestThenHold.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        return SAMPLES_JAR + File.pathSeparator + testClasses;
    }

    /**
     * The table, made before either process starts, so the reader finds it, with or without rows. Its
     * columns are the sample's ({@code dev.floe.samples.Events.SCHEMA}), whose rows the host writes by
     * these names; the samples jar is not on this class path (see the pom).
     */
    private static void createTable(Path warehouse) throws Exception {
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

    private static MapDbCatalog open(Path warehouse) {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("check", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
        return catalog;
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

    /** The table's rows as the reader writes them ({@link FlinkStreamingReader.ToLine}), by id. */
    private static List<String> rows(Table table) throws Exception {
        List<String> lines = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
            for (Record r : rows) {
                lines.add(r.getField("id") + "\t" + ((OffsetDateTime) r.getField("ts")).toInstant() + "\t"
                        + r.getField("device") + "\t" + r.getField("value") + "\t" + r.getField("payload"));
            }
        }
        lines.sort(Comparator.comparingLong(FlinkStreamingReaderIT::id));
        return lines;
    }

    private static long id(String line) {
        return Long.parseLong(line.substring(0, line.indexOf('\t')));
    }

    private static long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
