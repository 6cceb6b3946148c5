package dev.floe.bench;

import dev.floe.samples.Events;
import dev.floe.samples.Ingest;
import dev.floe.samples.IngestSettings;
import dev.floe.samples.ResultLine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * A host program of the incremental-rebuild benchmark, which knows nothing of floe (the rebuilds
 * are the operator CLI's, run beside it): builds a table with ordinary Iceberg appends, appends to
 * it, and times full scans.
 */
public final class IncrementalHost {
    static final String USAGE = String.join(
            "\n",
            "usage: java -cp floe-bench.jar dev.floe.bench.IncrementalHost scan <catalog.properties> <namespace.table>",
            "       java -cp floe-bench.jar dev.floe.bench.IncrementalHost build <catalog.properties> <namespace.table> \\",
            "           <rows> <files>",
            "       java -cp floe-bench.jar dev.floe.bench.IncrementalHost append <catalog.properties> <namespace.table> \\",
            "           <commits> <rows-per-commit>",
            "       java -cp floe-bench.jar dev.floe.bench.IncrementalHost copy <catalog.properties> <namespace.table>",
            "       java -javaagent:floe-agent.jar -cp floe-bench.jar dev.floe.bench.IncrementalHost promote \\",
            "           <catalog.properties> <namespace.table> [<namespace.table> ...]",
            "",
            "scan: reads every row of the table three times; scanMs is the fastest.",
            "build: creates the table (the sample ingest's schema) with <rows> rows in <files> commits.",
            "append: appends <commits> commits of <rows-per-commit> rows after the table's rows, one file each.",
            "copy: copies every data file of the table's current snapshot, byte for byte through the table's",
            "  FileIO (1 MiB buffer), beside them; copyMs is the time of the copies, which are then deleted.",
            "promote: with the agent attached and floe.trigger.snapshots=2, makes two commits of ten rows to each",
            "  table in turn and waits for floe's rebuild of it before the next: the first warms this JVM up as",
            "  a long-lived host is, what floe's log says of the others is a rebuild in such a host.",
            "",
            "Prints one line: RESULT key=value ... Exit 0 on success, 1 on failure, 2 on bad arguments.");

    private IncrementalHost() {}

    public static void main(String[] args) {
        int status;
        try {
            if (args.length < 3 || args[0].equals("--help")) {
                throw new IllegalArgumentException(USAGE);
            }
            Map<String, String> props = IngestSettings.catalogProperties(Paths.get(args[1]));
            Catalog catalog =
                    CatalogUtil.loadCatalog(props.get("catalog-impl"), "bench", props, IngestSettings.nioHadoopConf());
            TableIdentifier id = TableIdentifier.parse(args[2]);
            Map<String, String> result;
            try {
                result = switch (args[0]) {
                    case "scan" -> scan(catalog.loadTable(id));
                    case "build" -> build(catalog, id, Long.parseLong(args[3]), Integer.parseInt(args[4]));
                    case "copy" -> copy(catalog.loadTable(id));
                    case "promote" -> promote(catalog, java.util.Arrays.copyOfRange(args, 2, args.length));
                    case "append" ->
                        append(catalog.loadTable(id), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
                    default -> throw new IllegalArgumentException("unknown mode " + args[0]);
                };
            } finally {
                if (catalog instanceof java.io.Closeable closeable) {
                    closeable.close();
                }
            }
            System.out.println(ResultLine.format(result));
            status = 0;
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            System.err.println("incremental-host: error: " + e.getMessage());
            status = 2;
        } catch (Throwable t) {
            t.printStackTrace();
            System.err.println("incremental-host: error: " + Ingest.describe(t));
            status = 1;
        }
        System.exit(status);
    }

    /** Three full scans; the fastest, and the rows and data files. */
    static Map<String, String> scan(Table table) {
        long best = Long.MAX_VALUE;
        long rows = 0;
        for (int round = 0; round < 3; round++) {
            table.refresh();
            long t0 = System.nanoTime();
            rows = 0;
            try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
                for (Record ignored : records) {
                    rows += 1;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            best = Math.min(best, (System.nanoTime() - t0) / 1_000_000);
        }
        Map<String, String> out = new LinkedHashMap<>();
        out.put("scanMs", Long.toString(best));
        out.put("rows", Long.toString(rows));
        out.put("dataFiles", table.currentSnapshot().summary().getOrDefault("total-data-files", "?"));
        return out;
    }

    private static Map<String, String> build(Catalog catalog, TableIdentifier id, long rows, int files)
            throws Exception {
        Table table = RebuildHost.create(catalog, id, Events.SCHEMA);
        RebuildHost.build(table, rows, files, Events::writeFile);
        table.refresh();
        return Map.of(
                "rows",
                Long.toString(rows),
                "bytes",
                table.currentSnapshot().summary().get("total-files-size"));
    }

    /** A plain copy of the table's data files, what a byte-for-byte merge of them cannot beat on this disk. */
    static Map<String, String> copy(Table table) throws IOException {
        java.util.List<String> sources = new java.util.ArrayList<>();
        try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
                table.newScan().planFiles()) {
            tasks.forEach(task -> sources.add(task.file().location()));
        }
        java.util.List<String> copies = new java.util.ArrayList<>();
        byte[] buffer = new byte[1 << 20];
        long bytes = 0;
        long t0 = System.nanoTime();
        for (String source : sources) {
            String copy = table.location() + "/copy/" + source.substring(source.lastIndexOf('/') + 1);
            copies.add(copy);
            try (java.io.InputStream in = table.io().newInputFile(source).newStream();
                    java.io.OutputStream out = table.io().newOutputFile(copy).create()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    out.write(buffer, 0, n);
                    bytes += n;
                }
            }
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        copies.forEach(table.io()::deleteFile);
        Map<String, String> out = new LinkedHashMap<>();
        out.put("copyMs", Long.toString(ms));
        out.put("bytes", Long.toString(bytes));
        out.put("files", Integer.toString(sources.size()));
        return out;
    }

    /** Two commits to each table, then floe's rebuild of it awaited (its snapshot on top, marked as floe's). */
    private static Map<String, String> promote(Catalog catalog, String[] tables) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : tables) {
            Table table = catalog.loadTable(TableIdentifier.parse(name));
            append(table, 2, 10);
            long appended = table.currentSnapshot().snapshotId();
            long t0 = System.nanoTime();
            long deadline = t0 + java.util.concurrent.TimeUnit.MINUTES.toNanos(30);
            while (true) {
                table.refresh();
                org.apache.iceberg.Snapshot head = table.currentSnapshot();
                if (head.snapshotId() != appended && head.summary().containsKey(KeepUpWatch.REBUILT)) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("floe did not rebuild " + name + " within 30 minutes of two"
                            + " commits: is the agent attached with floe.trigger.snapshots=2?");
                }
                Thread.sleep(20);
            }
            out.put(name + ".waitMs", Long.toString((System.nanoTime() - t0) / 1_000_000));
        }
        out.put("tables", Integer.toString(tables.length));
        return out;
    }

    private static Map<String, String> append(Table table, int commits, int perCommit) throws Exception {
        long first = Long.parseLong(table.currentSnapshot().summary().get("total-records"));
        for (int c = 0; c < commits; c++) {
            table.newFastAppend()
                    .appendFile(Events.writeFile(table, first + (long) c * perCommit, perCommit))
                    .commit();
        }
        return Map.of("appended", Long.toString((long) commits * perCommit));
    }
}
