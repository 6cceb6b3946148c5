package dev.floe.bench;

import dev.floe.samples.Ingest;
import dev.floe.samples.IngestSettings;
import dev.floe.samples.ResultLine;
import dev.floe.samples.TableFacts;
import java.io.IOException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * A reader of the benchmarks, which knows nothing of floe: times full scans of a table (every
 * column of every row with Iceberg's generic reader, planning and deletes included) in a JVM of its
 * own, after the host that wrote it has ended.
 */
public final class ScanHost {
    static final String USAGE = String.join(
            "\n",
            "usage: java -cp floe-bench.jar dev.floe.bench.ScanHost <catalog.properties> <namespace.table> \\",
            "           <rounds> <budget-seconds>",
            "",
            "Reads every row of the table <rounds> times, fewer once the scans so far took <budget-seconds>",
            "(at least one). Prints one line: RESULT scanMs=<median> scans= minScanMs= maxScanMs= rows=",
            "distinctIds= dataFiles= deleteFiles= (the distinct delete files the scan applies).",
            "Exit 0 on success, 1 on failure, 2 on bad arguments.");

    private ScanHost() {}

    public static void main(String[] args) {
        int status;
        try {
            if (args.length != 4) {
                throw new IllegalArgumentException(USAGE);
            }
            Map<String, String> props = IngestSettings.catalogProperties(Paths.get(args[0]));
            Catalog catalog =
                    CatalogUtil.loadCatalog(props.get("catalog-impl"), "scan", props, IngestSettings.nioHadoopConf());
            try {
                Table table = catalog.loadTable(TableIdentifier.parse(args[1]));
                System.out.println(
                        ResultLine.format(scan(table, Integer.parseInt(args[2]), Long.parseLong(args[3]) * 1000)));
            } finally {
                if (catalog instanceof AutoCloseable closeable) {
                    closeable.close();
                }
            }
            status = 0;
        } catch (IllegalArgumentException e) {
            System.err.println("scan-host: error: " + e.getMessage());
            status = 2;
        } catch (Throwable t) {
            t.printStackTrace();
            System.err.println("scan-host: error: " + Ingest.describe(t));
            status = 1;
        }
        System.exit(status);
    }

    static Map<String, String> scan(Table table, int rounds, long budgetMillis) throws IOException {
        List<Long> times = new ArrayList<>();
        long spent = 0;
        long rows = 0;
        Set<Long> ids = new HashSet<>();
        while (times.size() < rounds && (times.isEmpty() || spent < budgetMillis)) {
            long t0 = System.nanoTime();
            rows = 0;
            ids.clear();
            try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
                for (Record record : records) {
                    rows++;
                    ids.add((Long) record.getField("id"));
                }
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            times.add(ms);
            spent += ms;
            System.out.printf(Locale.ROOT, "scan %d: %d ms, %d rows%n", times.size(), ms, rows);
        }
        Set<String> deletes = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                for (DeleteFile delete : task.deletes()) {
                    deletes.add(delete.location());
                }
            }
        }
        List<Double> sorted = times.stream().map(Long::doubleValue).toList();
        Map<String, String> out = new LinkedHashMap<>();
        out.put("scanMs", String.format(Locale.ROOT, "%.0f", Harness.percentile(sorted, 50)));
        out.put("scans", Integer.toString(times.size()));
        out.put(
                "minScanMs",
                Long.toString(times.stream().mapToLong(Long::longValue).min().orElse(0)));
        out.put(
                "maxScanMs",
                Long.toString(times.stream().mapToLong(Long::longValue).max().orElse(0)));
        out.put("rows", Long.toString(rows));
        out.put("distinctIds", Integer.toString(ids.size()));
        out.put("dataFiles", Long.toString(TableFacts.dataFiles(table)));
        out.put("deleteFiles", Integer.toString(deletes.size()));
        return out;
    }
}
