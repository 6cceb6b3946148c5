package dev.floe.engines;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkReadOptions;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.flink.source.StreamingStartingStrategy;

/**
 * A streaming reader that knows nothing of floe: a Flink job in a local MiniCluster reading the table
 * with Iceberg's own {@link IcebergSource} in streaming mode, from the earliest snapshot on,
 * through Iceberg's {@code RESTCatalog} on floe's endpoint, into a sink that keeps every row it
 * receives. No restarts, and no scan planning failure tolerated: any failure fails the job.
 *
 * <p>It prints {@code received rows=<n>} whenever more rows have come. The stop file, once it
 * appears, holds the number of rows the host committed: the reader waits until it has received that
 * many (at most {@link #CATCH_UP}), cancels the job, writes every row it received to the output file
 * (id, ts, device, value, payload; tab separated; in the order received) and prints {@code RESULT
 * rows= expected= status= errors=}. Exit code 0 when the job ran until cancelled and received the
 * rows expected, 1 otherwise (it prints {@code job failed: <cause>} on a failure).
 *
 * <p>Arguments: the endpoint's URI, the token, the table ({@code namespace.table}), the stop file,
 * the output file.
 */
public final class FlinkStreamingReader {
    /** How often the source looks for new snapshots. */
    static final Duration MONITOR = Duration.ofMillis(500);
    /** How long the reader waits for the rows the host committed once it stopped: a hang bound. */
    static final Duration CATCH_UP = Duration.ofMinutes(2);

    /** What the sink received; the MiniCluster runs in this JVM, its tasks in this class loader. */
    static final Queue<String> RECEIVED = new ConcurrentLinkedQueue<>();

    private FlinkStreamingReader() {}

    /** The sink: keeps each row. */
    @SuppressWarnings("deprecation") // SinkFunction: the plainest sink of a local job, still in Flink 1.20
    static final class Keep implements SinkFunction<String> {
        @Override
        public void invoke(String line, Context context) {
            RECEIVED.add(line);
        }
    }

    /** One row as a line: id, ts (an instant), device, value, payload, tab separated. */
    static final class ToLine implements MapFunction<RowData, String> {
        @Override
        public String map(RowData row) {
            return row.getLong(0) + "\t" + row.getTimestamp(1, 6).toInstant() + "\t" + row.getString(2) + "\t"
                    + row.getDouble(3) + "\t" + row.getString(4);
        }
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String token = args[1];
        TableIdentifier table = TableIdentifier.parse(args[2]);
        Path stop = Path.of(args[3]);
        Path out = Path.of(args[4]);
        Map<String, String> properties = Map.of(
                CatalogProperties.URI,
                uri,
                // a static bearer token, as the Spark reader sends it: never refreshed, no token endpoint asked
                "rest.auth.type",
                "oauth2",
                "token",
                token,
                "token-refresh-enabled",
                "false",
                CatalogProperties.FILE_IO_IMPL,
                "org.apache.iceberg.hadoop.HadoopFileIO");
        CatalogLoader catalogLoader =
                CatalogLoader.rest("floe", new org.apache.hadoop.conf.Configuration(), properties);
        Schema schema;
        Catalog catalog = catalogLoader.loadCatalog();
        try {
            schema = catalog.loadTable(table).schema();
        } finally {
            if (catalog instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }

        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(RestOptions.BIND_PORT, "0");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        IcebergSource<RowData> source = IcebergSource.forRowData()
                .tableLoader(TableLoader.fromCatalog(catalogLoader, table))
                .streaming(true)
                .monitorInterval(MONITOR)
                .streamingStartingStrategy(StreamingStartingStrategy.INCREMENTAL_FROM_EARLIEST_SNAPSHOT)
                // no scan planning failure tolerated (Iceberg's default lets 3 in a row pass, logged only). Not
                // through maxAllowedPlanningFailures(0): in Iceberg 1.10.1 it puts the option under its Flink
                // config key (connector.iceberg.max-allowed-planning-failures), which the source's read options
                // are not looked up by, so the default stays (seen here: three failures logged, then the fourth)
                .set(FlinkReadOptions.MAX_ALLOWED_PLANNING_FAILURES, "0")
                .build();
        env.fromSource(
                        source,
                        WatermarkStrategy.noWatermarks(),
                        "events",
                        InternalTypeInfo.of(FlinkSchemaUtil.convert(schema)))
                .uid("events")
                .map(new ToLine())
                .uid("to-line")
                .addSink(new Keep())
                .uid("keep");
        JobClient job = env.executeAsync("floe-engines flink streaming reader");
        System.out.println("flink streams " + table + " through " + uri + ", job " + job.getJobID());

        long expected = -1;
        long deadline = Long.MAX_VALUE;
        int reported = 0;
        String failure = null;
        while (true) {
            JobStatus status = job.getJobStatus().get(1, TimeUnit.MINUTES);
            if (status.isGloballyTerminalState()) {
                failure = "the job ended by itself: " + status + ", " + cause(job);
                break;
            }
            int received = RECEIVED.size();
            if (received > reported) {
                reported = received;
                System.out.println("received rows=" + received);
            }
            if (expected < 0 && Files.exists(stop)) {
                String text = Files.readString(stop, StandardCharsets.UTF_8).trim();
                if (!text.isEmpty()) {
                    expected = Long.parseLong(text);
                    deadline = System.nanoTime() + CATCH_UP.toNanos();
                    System.out.println("the host committed " + expected + " rows; catching up");
                }
            }
            if (expected >= 0 && (received >= expected || System.nanoTime() > deadline)) {
                break;
            }
            Thread.sleep(100); // this reader's own pace, as IncrementalConsumer's
        }
        if (failure == null) {
            job.cancel().get(1, TimeUnit.MINUTES);
        } else {
            System.out.println("job failed: " + failure);
        }
        Files.write(out, RECEIVED, StandardCharsets.UTF_8);
        long rows = RECEIVED.size();
        boolean ok = failure == null && rows == expected;
        System.out.println("RESULT rows=" + rows + " expected=" + expected + " status="
                + (failure == null ? "RUNNING" : "FAILED") + " errors=" + (failure == null ? 0 : 1));
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /** Why the job ended, from its execution result. */
    private static String cause(JobClient job) {
        try {
            job.getJobExecutionResult().get(1, TimeUnit.MINUTES);
            return "no failure";
        } catch (Exception e) {
            StringBuilder text = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                text.append(text.length() == 0 ? "" : " <- ").append(t);
            }
            e.printStackTrace(System.out);
            return text.toString();
        }
    }
}
