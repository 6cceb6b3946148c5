package dev.floe.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
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
 *
 * <p>Every version is planned (its files and, from their record counts less its position deletes, its
 * row count); {@link #SAMPLE} of the window's versions, evenly spaced, are also read row by row, which
 * checks that their rows are distinct and as many as the metadata says. Reading all of them would take
 * longer than the run (a thousand versions of tens of thousands of rows). If any sampled version reads
 * wrong, only the versions read count as readable.
 */
final class VersionsReadBack {
    static final int SAMPLE = 25;

    private VersionsReadBack() {}

    /**
     * Adds keptContentBytes=, currentContentBytes=, keptVersions=, rewrittenVersions=,
     * versionsInWindow=, versionsReadable=, versionsSampled=, versionsSampledExact=.
     */
    static void into(
            Table live, List<long[]> commits, long rowsPerCommit, long windowMillis, Map<String, String> values)
            throws IOException {
        // one version of the table: floe may install a rebuild (and expire snapshots) meanwhile
        TableMetadata metadata = ((HasTableOperations) live).operations().current();
        Table table = new BaseTable(
                new StaticTableOperations(metadata.metadataFileLocation(), live.io()), live.name() + ".read-back");
        long end = System.currentTimeMillis();
        Map<String, Long> kept = new HashMap<>();
        Map<String, Long> current = new HashMap<>();
        Map<Long, Long> rowsOf = new HashMap<>();
        List<Snapshot> inWindow = new ArrayList<>();
        int rewritten = 0;
        for (Snapshot snapshot : table.snapshots()) {
            if (snapshot.summary() != null && snapshot.summary().containsKey("floe.rewritten-onto")) {
                rewritten++;
            }
            boolean head = table.currentSnapshot().snapshotId() == snapshot.snapshotId();
            rowsOf.put(snapshot.snapshotId(), plannedRows(table, snapshot, kept, head ? current : null));
            if (snapshot.timestampMillis() >= end - windowMillis) {
                inWindow.add(snapshot);
            }
        }
        inWindow.sort((a, b) -> Long.compare(a.timestampMillis(), b.timestampMillis()));
        Set<Long> plannedCounts = new HashSet<>(rowsOf.values());
        Set<Long> readCounts = new HashSet<>();
        int sampled = 0;
        int exact = 0;
        for (Snapshot snapshot : sample(inWindow)) {
            sampled++;
            long read = readRows(table, snapshot);
            if (read >= 0 && read == rowsOf.get(snapshot.snapshotId())) {
                exact++;
                readCounts.add(read);
            }
        }
        Set<Long> trusted = exact == sampled ? plannedCounts : readCounts;
        int window = 0;
        int readable = 0;
        for (long[] commit : commits) {
            if (commit[1] >= end - windowMillis) {
                window++;
                if (trusted.contains(commit[0] * rowsPerCommit)) {
                    readable++;
                }
            }
        }
        values.put("keptContentBytes", Long.toString(sum(kept)));
        values.put("currentContentBytes", Long.toString(sum(current)));
        values.put("keptVersions", Integer.toString(rowsOf.size()));
        values.put("rewrittenVersions", Integer.toString(rewritten));
        values.put("versionsInWindow", Integer.toString(window));
        values.put("versionsReadable", Integer.toString(readable));
        values.put("versionsSampled", Integer.toString(sampled));
        values.put("versionsSampledExact", Integer.toString(exact));
    }

    /** A version's row count from its plan (-1 when an equality delete makes it unknowable without reading). */
    private static long plannedRows(Table table, Snapshot snapshot, Map<String, Long> kept, Map<String, Long> current)
            throws IOException {
        long rows = 0;
        Map<String, Long> positionDeletes = new HashMap<>();
        boolean equality = false;
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                add(task.file(), kept, current);
                rows += task.file().recordCount();
                for (DeleteFile delete : task.deletes()) {
                    add(delete, kept, current);
                    equality |= delete.content() == FileContent.EQUALITY_DELETES;
                    positionDeletes.put(delete.location(), delete.recordCount());
                }
            }
        }
        return equality ? -1 : rows - sum(positionDeletes);
    }

    /** The rows of one version, read; -1 if some id is there twice. */
    private static long readRows(Table table, Snapshot snapshot) throws IOException {
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
        return ids.size() == rows ? rows : -1;
    }

    /** At most {@link #SAMPLE} of the versions, evenly spaced, the first and the last among them. */
    static <T> List<T> sample(List<T> versions) {
        if (versions.size() <= SAMPLE) {
            return versions;
        }
        List<T> picked = new ArrayList<>();
        for (int i = 0; i < SAMPLE; i++) {
            picked.add(versions.get((int) ((long) i * (versions.size() - 1) / (SAMPLE - 1))));
        }
        return picked;
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
