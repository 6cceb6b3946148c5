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
            "",
            "scan: reads every row of the table three times; scanMs is the fastest.",
            "build: creates the table (the sample ingest's schema) with <rows> rows in <files> commits.",
            "append: appends <commits> commits of <rows-per-commit> rows after the table's rows, one file each.",
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
