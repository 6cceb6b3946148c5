package dev.floe.runtime.rebuild;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.catalog.TableIdentifier;

/** Child-JVM entry point: rebuilds one table and prints its report and the peak heap. */
public final class LowHeapRebuild {
    private LowHeapRebuild() {}

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        TableIdentifier table = TableIdentifier.parse(args[1]);
        RebuildSettings settings = RebuildSettings.defaults()
                .with(s -> s.rowGroupMaxBytes = Long.parseLong(args[2]))
                .with(s -> s.targetFileBytes = Long.parseLong(args[3]))
                .with(s -> s.rowGroupRows = args.length > 4 ? Integer.parseInt(args[4]) : s.rowGroupRows);
        AtomicLong peak = new AtomicLong();
        Thread sampler = new Thread(() -> {
            Runtime runtime = Runtime.getRuntime();
            while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet(runtime.totalMemory() - runtime.freeMemory(), Math::max);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        sampler.setDaemon(true);
        sampler.start();
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            CompactReport report = new Compactor(settings).compactTable(catalog, table, Prune.NONE);
            sampler.interrupt();
            System.out.println("rows=" + report.rows() + " files=" + report.dataFilesAfter() + " copied="
                    + report.copiedFiles() + " peakHeapUsedBytes=" + peak.get() + " maxHeapBytes="
                    + Runtime.getRuntime().maxMemory());
        }
    }
}
