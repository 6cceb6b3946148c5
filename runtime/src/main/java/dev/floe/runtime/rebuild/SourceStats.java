package dev.floe.runtime.rebuild;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Data files, bytes and rows of the snapshot a rebuild starts from: from its summary's totals, or
 * by planning its files when the summary has none. What a rebuild reports as "before", and what the
 * CLI's dry run and progress bar show.
 */
public record SourceStats(long dataFiles, long bytes, long rows) {
    public static SourceStats of(Table table, Snapshot snapshot) {
        if (snapshot == null) {
            return new SourceStats(0, 0, 0);
        }
        Map<String, String> summary = snapshot.summary();
        if (summary.containsKey(SnapshotSummary.TOTAL_DATA_FILES_PROP)
                && summary.containsKey(SnapshotSummary.TOTAL_FILE_SIZE_PROP)) {
            return new SourceStats(
                    Long.parseLong(summary.get(SnapshotSummary.TOTAL_DATA_FILES_PROP)),
                    Long.parseLong(summary.get(SnapshotSummary.TOTAL_FILE_SIZE_PROP)),
                    Long.parseLong(summary.getOrDefault(SnapshotSummary.TOTAL_RECORDS_PROP, "0")));
        }
        long files = 0;
        long bytes = 0;
        long rows = 0;
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                files += 1;
                bytes += task.file().fileSizeInBytes();
                rows += task.file().recordCount();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SourceStats(files, bytes, rows);
    }
}
