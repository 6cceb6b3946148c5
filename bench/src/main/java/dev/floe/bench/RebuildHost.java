package dev.floe.bench;

import static org.apache.iceberg.types.Types.NestedField.required;

import dev.floe.samples.Events;
import dev.floe.samples.Ingest;
import dev.floe.samples.IngestSettings;
import dev.floe.samples.ResultLine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * The host program of the throughput and low-heap benchmarks. Like the sample ingest it knows nothing of floe's
 * classes: it builds a table with ordinary Iceberg appends, makes one more commit, and then
 * watches, as any operator could, for the rebuild the attached agent is configured to start at that
 * commit: the platform MBean server's {@code dev.floe:type=Table,name=<table>} attributes {@code
 * Rebuilds}, {@code RebuildFailures}, {@code LastReport} and {@code LastError}.
 *
 * <pre>
 * java -javaagent:floe-agent.jar -Dfloe.trigger.snapshots=&lt;files+1&gt; -Dfloe.merge.manifests=0 -cp floe-bench.jar \
 *     dev.floe.bench.RebuildHost throughput &lt;catalog.properties&gt; &lt;rows&gt; &lt;files&gt;
 * java -Xmx128m -javaagent:floe-agent.jar -Dfloe.trigger.snapshots=&lt;files+1&gt; -Dfloe.merge.manifests=0 -cp floe-bench.jar \
 *     dev.floe.bench.RebuildHost low-heap &lt;catalog.properties&gt; &lt;data-bytes&gt; &lt;files&gt;
 * </pre>
 */
public final class RebuildHost {
    static final String USAGE = String.join(
            "\n",
            "usage: java -javaagent:floe-agent.jar -Dfloe.trigger.snapshots=<files+1> -Dfloe.merge.manifests=0 \\",
            "           -cp floe-bench.jar \\",
            "           dev.floe.bench.RebuildHost throughput <catalog.properties> <rows> <files>",
            "       java -Xmx128m -javaagent:floe-agent.jar -Dfloe.trigger.snapshots=<files+1> \\",
            "           -Dfloe.merge.manifests=0 -cp ... \\",
            "           dev.floe.bench.RebuildHost low-heap <catalog.properties> <data-bytes> <files>",
            "",
            "throughput: twice (tables bench.warm, then bench.measured; the first round warms the JIT for",
            "  both sides, the second is the one to report), builds a table of <rows> rows of the sample",
            "  ingest's schema in <files> single-file commits, then in this JVM",
            "  1. plain parquet-java: reads those files with ParquetReader+GroupReadSupport (a read-only",
            "     pass, then again) writing every row with ExampleParquetWriter, ZSTD level 3, row groups",
            "     of 131072 rows, into one file; both timed;",
            "  2. floe: one more commit of one row crosses floe.trigger.snapshots; the rebuild runs on",
            "     floe's thread while this one waits for the table's MBean to count it, and its LastReport",
            "     gives the stream phase (read + write) time, rows and bytes. (A manifest merge between",
            "     the commits would add a snapshot and start the rebuild one commit early: merges off.)",
            "low-heap: builds a table of <files> single-file commits, rows of an id and 256 random bytes,",
            "  about <data-bytes> on disk, then one more commit triggers a rebuild; reports whether it",
            "  succeeded and the peak heap while it ran (run it with -Xmx128m).",
            "",
            "Prints one line: RESULT key=value ... Exit 0 on success, 1 on failure, 2 on bad arguments.");

    /** The low-heap table: an id and an incompressible payload. */
    static final Schema RANDOM_SCHEMA =
            new Schema(required(1, "id", Types.LongType.get()), required(2, "payload", Types.BinaryType.get()));

    static final int PAYLOAD_BYTES = 256;

    private RebuildHost() {}

    public static void main(String[] args) {
        if (args.length >= 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println(USAGE);
            System.exit(0);
        }
        int status;
        try {
            if (args.length != 4 || !List.of("throughput", "low-heap").contains(args[0])) {
                throw new IllegalArgumentException(
                        "expected throughput|low-heap <catalog.properties> <rows|data-bytes> <files>");
            }
            Map<String, String> props = IngestSettings.catalogProperties(Paths.get(args[1]));
            long amount = Long.parseLong(args[2].trim());
            int files = Integer.parseInt(args[3].trim());
            if (amount < files || files < 1) {
                throw new IllegalArgumentException("need <files> >= 1 and at least one row per file");
            }
            Map<String, String> result =
                    args[0].equals("throughput") ? throughput(props, amount, files) : lowHeap(props, amount, files);
            System.out.println(ResultLine.format(result));
            status = "false".equals(result.get("ok")) ? 1 : 0;
        } catch (IllegalArgumentException e) {
            System.err.println("rebuild-bench: error: " + e.getMessage() + " (--help for usage)");
            status = 2;
        } catch (Throwable t) {
            if (Boolean.getBoolean("ingest.stacktrace")) {
                t.printStackTrace();
            }
            System.err.println("rebuild-bench: error: " + Ingest.describe(t));
            status = 1;
        }
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }

    // ---------------------------------------------------------------------------------------------

    private static Map<String, String> throughput(Map<String, String> props, long rows, int files) throws Exception {
        Configuration conf = IngestSettings.nioHadoopConf();
        Catalog catalog = CatalogUtil.loadCatalog(props.get("catalog-impl"), "bench", props, conf);
        Map<String, String> out = new LinkedHashMap<>();
        try {
            for (String round : List.of("warm", "measured")) {
                TableIdentifier id = TableIdentifier.of("bench", round);
                Table table = create(catalog, id, Events.SCHEMA);
                build(table, rows, files, Events::writeFile);
                FloeMBeans.requireAgent();
                List<String> paths = new ArrayList<>();
                long inputBytes = 0;
                try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                    for (FileScanTask task : tasks) {
                        paths.add(task.file().location());
                        inputBytes += task.file().fileSizeInBytes();
                    }
                }
                String prefix = round.equals("warm") ? "warm." : "";

                // 1. plain parquet-java, same rows, same JVM
                long t0 = System.nanoTime();
                long readRows = ParquetJava.read(paths, conf);
                long readMs = (System.nanoTime() - t0) / 1_000_000;
                org.apache.hadoop.fs.Path target =
                        new org.apache.hadoop.fs.Path(table.location() + "/parquet-java/" + round + ".parquet");
                t0 = System.nanoTime();
                long[] written = ParquetJava.rewrite(paths, target, conf);
                long readWriteMs = (System.nanoTime() - t0) / 1_000_000;
                target.getFileSystem(conf).delete(target.getParent(), true);
                if (readRows != rows || written[0] != rows) {
                    throw new IllegalStateException(
                            "parquet-java read " + readRows + " and wrote " + written[0] + " rows, expected " + rows);
                }

                // 2. floe: one more commit crosses the trigger; wait for the rebuild
                long[] before = FloeMBeans.noRebuildYet(id);
                table.newFastAppend()
                        .appendFile(Events.writeFile(table, rows, 1))
                        .commit();
                long w0 = System.nanoTime();
                String report = FloeMBeans.awaitRebuild(id, before);
                long waitedMs = (System.nanoTime() - w0) / 1_000_000;
                RebuildReport rebuilt = RebuildReport.parse(report);
                Map<String, Long> phases = rebuilt.phases();

                out.put(prefix + "rows", Long.toString(rows));
                out.put(prefix + "files", Integer.toString(files));
                out.put(prefix + "inputBytes", Long.toString(inputBytes));
                out.put(prefix + "pjReadMs", Long.toString(readMs));
                out.put(prefix + "pjReadWriteMs", Long.toString(readWriteMs));
                out.put(prefix + "pjOutputBytes", Long.toString(written[1]));
                out.put(prefix + "pjRowGroups", Long.toString(written[2]));
                out.put(prefix + "floeStreamMs", Long.toString(phases.getOrDefault("stream", -1L)));
                out.put(prefix + "floeRebuildMs", Long.toString(rebuilt.totalMs()));
                out.put(prefix + "floeWaitMs", Long.toString(waitedMs));
                out.put(prefix + "floeRows", rebuilt.rows());
                out.put(prefix + "floeInputBytes", rebuilt.bytesBefore());
                out.put(prefix + "floeOutputBytes", rebuilt.bytesAfter());
                out.put(prefix + "floeFilesAfter", rebuilt.filesAfter());
                out.put(prefix + "report", rebuilt.asValue());
            }
            out.put("ok", "true");
            return out;
        } finally {
            closeQuietly(catalog);
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static Map<String, String> lowHeap(Map<String, String> props, long dataBytes, int files) throws Exception {
        Catalog catalog =
                CatalogUtil.loadCatalog(props.get("catalog-impl"), "bench", props, IngestSettings.nioHadoopConf());
        Map<String, String> out = new LinkedHashMap<>();
        try (HeapWatch heap = new HeapWatch()) {
            TableIdentifier id = TableIdentifier.of("bench", "lowheap");
            Table table = create(catalog, id, RANDOM_SCHEMA);
            // on disk a row is its payload and a little more: aim at dataBytes in all
            long rows = Math.max(files, dataBytes / (PAYLOAD_BYTES + 12));
            build(table, rows, files, RebuildHost::writeRandomFile);
            FloeMBeans.requireAgent();
            table.refresh();
            long onDisk = Long.parseLong(table.currentSnapshot().summary().get(SnapshotSummary.TOTAL_FILE_SIZE_PROP));
            long maxHeap = Runtime.getRuntime().maxMemory();
            long buildPeak = heap.peakUsedBytes();

            System.gc();
            heap.reset();
            long[] before = FloeMBeans.noRebuildYet(id);
            table.newFastAppend().appendFile(writeRandomFile(table, rows, 1)).commit();
            String report = null;
            String error = null;
            try {
                report = FloeMBeans.awaitRebuild(id, before);
            } catch (IllegalStateException e) {
                error = e.getMessage();
            }
            long peakUsed = heap.peakUsedBytes();
            long peakLive = heap.peakLiveBytes();

            long readBack = -1;
            if (report != null) {
                table.refresh();
                readBack = 0;
                try (CloseableIterable<Record> records =
                        IcebergGenerics.read(table).select("id").build()) {
                    for (Record ignored : records) {
                        readBack++;
                    }
                }
            }
            boolean ok = report != null && readBack == rows + 1;
            out.put("ok", Boolean.toString(ok));
            out.put("rows", Long.toString(rows + 1));
            out.put("readBack", Long.toString(readBack));
            out.put("files", Integer.toString(files + 1));
            out.put("dataBytes", Long.toString(onDisk));
            out.put("maxHeapBytes", Long.toString(maxHeap));
            out.put("dataToHeap", String.format(Locale.ROOT, "%.2f", (double) onDisk / maxHeap));
            out.put("buildPeakHeapBytes", Long.toString(buildPeak));
            out.put("peakHeapBytes", Long.toString(peakUsed));
            out.put("peakLiveHeapBytes", Long.toString(peakLive));
            if (report != null) {
                RebuildReport rebuilt = RebuildReport.parse(report);
                Map<String, Long> phases = rebuilt.phases();
                out.put("rebuildMs", Long.toString(rebuilt.totalMs()));
                out.put("streamMs", Long.toString(phases.getOrDefault("stream", -1L)));
                out.put("filesAfter", rebuilt.filesAfter());
                out.put("bytesAfter", rebuilt.bytesAfter());
                out.put("report", rebuilt.asValue());
            } else {
                out.put("error", "\"" + String.valueOf(error).replace(' ', '_') + "\"");
            }
            return out;
        } finally {
            closeQuietly(catalog);
        }
    }

    /** Rows of {@link #PAYLOAD_BYTES} random (incompressible) bytes each, to one new data file. */
    static DataFile writeRandomFile(Table table, long firstId, int count) throws IOException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return Events.writeFile(table, firstId, count, (template, id) -> {
            byte[] payload = new byte[PAYLOAD_BYTES];
            random.nextBytes(payload);
            Record row = template.copy();
            row.setField("id", id);
            row.setField("payload", ByteBuffer.wrap(payload));
            return row;
        });
    }

    // ---------------------------------------------------------------------------------------------

    interface FileWriter {
        DataFile write(Table table, long firstId, int count) throws IOException;
    }

    static Table create(Catalog catalog, TableIdentifier id, Schema schema) {
        if (catalog instanceof SupportsNamespaces && !((SupportsNamespaces) catalog).namespaceExists(id.namespace())) {
            ((SupportsNamespaces) catalog).createNamespace(id.namespace());
        }
        if (catalog.tableExists(id)) {
            throw new IllegalStateException("table " + id + " exists already: give me a fresh catalog");
        }
        return catalog.createTable(id, schema, PartitionSpec.unpartitioned(), Map.of());
    }

    /** {@code files} single-file commits, {@code rows} rows in all; files written on two threads. */
    static void build(Table table, long rows, int files, FileWriter writer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<DataFile>> pending = new ArrayList<>();
            long first = 0;
            for (int f = 0; f < files; f++) {
                long count = rows / files + (f < rows % files ? 1 : 0);
                long start = first;
                pending.add(pool.submit(() -> writer.write(table, start, (int) count)));
                first += count;
            }
            for (Future<DataFile> file : pending) {
                table.newFastAppend().appendFile(file.get()).commit();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void closeQuietly(Object closeable) {
        if (closeable instanceof AutoCloseable) {
            try {
                ((AutoCloseable) closeable).close();
            } catch (Exception e) {
                // nothing to add
            }
        }
    }
}
