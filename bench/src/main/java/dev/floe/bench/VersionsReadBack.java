package dev.floe.bench;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * What the versions a table keeps cost and hold at the end of an append-only run of one thread: the
 * bytes of every data and delete file some version references against those of the current version,
 * and how many of the run's versions committed within the last {@code windowMillis} still read back
 * by id with exactly their rows (the version after commit {@code k} holds {@code k} commits' rows,
 * each id once).
 */
final class VersionsReadBack {
    private VersionsReadBack() {}

    /**
     * Adds keptContentBytes=, currentContentBytes=, keptVersions=, rewrittenVersions=,
     * versionsInWindow=, versionsReadable=.
     */
    static void into(
            Table live, List<long[]> commits, long rowsPerCommit, long windowMillis, Map<String, String> values)
            throws IOException {
        // one version of the table, read whole: floe may install a rebuild (and expire snapshots) meanwhile
        TableMetadata metadata = ((HasTableOperations) live).operations().current();
        Table table = new BaseTable(
                new StaticTableOperations(metadata.metadataFileLocation(), live.io()), live.name() + ".read-back");
        Map<String, Long> kept = new HashMap<>();
        Map<String, Long> current = new HashMap<>();
        Set<Long> exactCounts = new HashSet<>();
        int rewritten = 0;
        int versions = 0;
        for (Snapshot snapshot : table.snapshots()) {
            versions++;
            if (snapshot.summary() != null && snapshot.summary().containsKey("floe.rewritten-onto")) {
                rewritten++;
            }
            boolean head = table.currentSnapshot().snapshotId() == snapshot.snapshotId();
            try (CloseableIterable<FileScanTask> tasks =
                    table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
                for (FileScanTask task : tasks) {
                    add(task.file(), kept, head ? current : null);
                    task.deletes().forEach(delete -> add(delete, kept, head ? current : null));
                }
            }
            Set<Long> ids = new HashSet<>();
            long rows = 0;
            try (CloseableIterable<Record> read = IcebergGenerics.read(table)
                    .useSnapshot(snapshot.snapshotId())
                    .select("id")
                    .build()) {
                for (Record record : read) {
                    rows++;
                    ids.add((Long) record.getField("id"));
                }
            }
            if (ids.size() == rows) {
                exactCounts.add(rows);
            }
        }
        long end = System.currentTimeMillis();
        int inWindow = 0;
        int readable = 0;
        for (long[] commit : commits) {
            if (commit[1] >= end - windowMillis) {
                inWindow++;
                if (exactCounts.contains(commit[0] * rowsPerCommit)) {
                    readable++;
                }
            }
        }
        values.put("keptContentBytes", Long.toString(sum(kept)));
        values.put("currentContentBytes", Long.toString(sum(current)));
        values.put("keptVersions", Integer.toString(versions));
        values.put("rewrittenVersions", Integer.toString(rewritten));
        values.put("versionsInWindow", Integer.toString(inWindow));
        values.put("versionsReadable", Integer.toString(readable));
    }

    private static void add(ContentFile<?> file, Map<String, Long> kept, Map<String, Long> current) {
        kept.put(file.location(), file.fileSizeInBytes());
        if (current != null) {
            current.put(file.location(), file.fileSizeInBytes());
        }
    }

    private static long sum(Map<String, Long> sizes) {
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }
}
