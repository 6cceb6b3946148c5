package dev.floe.engines.spark;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/**
 * A streaming reader that knows nothing of floe: one Spark Structured Streaming query, {@code
 * spark.readStream().format("iceberg")} on the table through Iceberg's {@code SparkCatalog} on floe's
 * REST endpoint ({@link SparkReader#session}, its cache off), from the table's first snapshot on,
 * with a {@code foreachBatch} sink that writes every row of micro-batch {@code n} to {@code
 * <out>/batch-<n>.tsv} (id, ts, device, value, payload; tab separated), the file replaced whole if
 * Spark runs the batch again, as an idempotent sink does.
 *
 * <p>It prints {@code batch id=<n> rows=<rows> ids=<lowest>..<highest> received=<rows so far>} after each
 * batch with rows,
 * and for each progress with rows {@code progress batch=<n> rows=<rows> from=<snapshot> to=<snapshot>}
 * (the snapshots of the source's start and end offsets, {@code -} for none). Once the stop file
 * appears it waits for the query to have processed all that is available ({@code
 * processAllAvailable}), stops it and prints {@code RESULT batches= rows= firstTo= lastTo= errors=}:
 * the end offsets' snapshots of the first batch with rows and of the last, and 1 if the query failed
 * (it then prints {@code stream failed: <cause>} and exits 1 at once).
 *
 * <p>Arguments: the endpoint's URI, the token, the table ({@code namespace.table}), the checkpoint
 * directory, the output directory, the stop file.
 */
public final class SparkStreamingReader {
    /** How often the query looks for new snapshots: often, without loading the table from the host non-stop. */
    static final String TRIGGER_INTERVAL = "500 milliseconds";

    static final Pattern SNAPSHOT = Pattern.compile("\"snapshot_id\"\\s*:\\s*(-?\\d+)");

    private SparkStreamingReader() {}

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String token = args[1];
        String table = args[2];
        Path checkpoint = Path.of(args[3]);
        Path out = Files.createDirectories(Path.of(args[4]));
        Path stop = Path.of(args[5]);
        SparkSession spark = SparkReader.session(uri, token);
        System.out.println("spark " + spark.version() + " streams floe." + table + " through " + uri);

        Progress progress = new Progress();
        spark.streams().addListener(progress);
        AtomicLong received = new AtomicLong();
        AtomicLong batches = new AtomicLong();
        VoidFunction2<Dataset<Row>, Long> sink = (batch, id) -> {
            List<Row> rows = batch.collectAsList();
            if (rows.isEmpty()) {
                return;
            }
            Path file = out.resolve("batch-" + id + ".tsv");
            Path partial = out.resolve("batch-" + id + ".tsv.partial");
            try (Writer w = Files.newBufferedWriter(partial, StandardCharsets.UTF_8)) {
                for (Row row : rows) {
                    w.write(line(row));
                    w.write('\n');
                }
            }
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            batches.incrementAndGet();
            long min = rows.stream().mapToLong(r -> r.getLong(0)).min().getAsLong();
            long max = rows.stream().mapToLong(r -> r.getLong(0)).max().getAsLong();
            System.out.println("batch id=" + id + " rows=" + rows.size() + " ids=" + min + ".." + max + " received="
                    + received.addAndGet(rows.size()));
        };
        StreamingQuery query = spark.readStream()
                .format("iceberg")
                .load("floe." + table)
                .select("id", "ts", "device", "value", "payload")
                .writeStream()
                .queryName("floe-stream")
                .option("checkpointLocation", checkpoint.toString())
                .trigger(Trigger.ProcessingTime(TRIGGER_INTERVAL))
                .foreachBatch(sink)
                .start();

        int status = 0;
        try {
            while (!Files.exists(stop)) {
                if (query.awaitTermination(100)) {
                    break; // it ended by itself: failed
                }
            }
            // the host commits no more: every snapshot it made goes through the query before it stops
            query.processAllAvailable();
            query.stop();
        } catch (Exception e) {
            status = 1;
            System.out.println("stream failed: " + e);
            e.printStackTrace(System.out);
        }
        if (status == 0 && query.exception().isDefined()) {
            status = 1;
            System.out.println("stream failed: " + query.exception().get());
            query.exception().get().printStackTrace(System.out);
        }
        // the last progress is of the last trigger, after its batch: its end offset is where the query stopped
        String lastTo = query.lastProgress() == null || query.lastProgress().sources().length == 0
                ? "-"
                : snapshot(query.lastProgress().sources()[0].endOffset());
        System.out.println("RESULT batches=" + batches.get() + " rows=" + received.get() + " firstTo="
                + progress.firstTo + " lastTo=" + lastTo + " errors=" + status);
        System.out.flush();
        spark.stop();
        // the RESULT line is out: end here even if a thread of Spark's lingers
        System.exit(status);
    }

    /** One row as a line: id, ts (an instant), device, value, payload, tab separated. */
    private static String line(Row row) {
        Object ts = row.get(1);
        Instant instant = ts instanceof Timestamp t ? t.toInstant() : (Instant) ts;
        return row.getLong(0) + "\t" + instant + "\t" + row.getString(2) + "\t" + row.getDouble(3) + "\t"
                + row.getString(4);
    }

    /** The snapshot of a source's offset ({@code StreamingOffset}'s JSON), or {@code -}. */
    static String snapshot(String offset) {
        Matcher m = offset == null ? null : SNAPSHOT.matcher(offset);
        return m != null && m.find() ? m.group(1) : "-";
    }

    /** Prints the progress of each batch with rows and keeps the end offset of the first. */
    private static final class Progress extends StreamingQueryListener {
        volatile String firstTo = "-";

        @Override
        public void onQueryStarted(QueryStartedEvent event) {
            System.out.println("stream started id=" + event.id());
        }

        @Override
        public void onQueryProgress(QueryProgressEvent event) {
            StreamingQueryProgress p = event.progress();
            if (p.numInputRows() == 0 || p.sources().length == 0) {
                return;
            }
            String from = snapshot(p.sources()[0].startOffset());
            String to = snapshot(p.sources()[0].endOffset());
            if (firstTo.equals("-")) {
                firstTo = to;
            }
            System.out.println(
                    "progress batch=" + p.batchId() + " rows=" + p.numInputRows() + " from=" + from + " to=" + to);
        }

        @Override
        public void onQueryTerminated(QueryTerminatedEvent event) {
            System.out.println("stream terminated"
                    + (event.exception().isDefined() ? ": " + event.exception().get() : ""));
        }
    }
}
