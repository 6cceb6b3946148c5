package dev.floe.runtime;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Step 5 of a rebuild, under the gate: commits the rebuilt files to the scratch table as its one
 * snapshot, carrying the writers' markers of the snapshots it replaces ({@link WriterMarkers}).
 *
 * <p>The files listed before the gate come as their pre-written manifest, the ones carried since
 * as a second small manifest. Iceberg counts the files and rows of an appended manifest but not
 * their bytes, so the commit states the bytes itself: the rebuilt snapshot's totals ({@code
 * total-files-size}, {@code total-records}, {@code total-data-files}) are those of its files, and
 * every later append adds onto true figures.
 */
final class RebuiltSnapshotCommit {
    static final String REBUILD_OF = "floe.rebuild-of-snapshot";
    static final String WRITER_MARKER = "floe.writer-marker";
    private static final Logger LOG = LoggerFactory.getLogger(RebuiltSnapshotCommit.class);

    private RebuiltSnapshotCommit() {}

    /**
     * @param files the files listed before the gate (kept, written and carried), in their
     *     pre-written manifest when there is one, and the delete files kept
     * @param late the files of appends carried under the gate
     * @param current the live table as read under the gate: whose snapshots the rebuild replaces
     */
    static void commit(
            Table scratch,
            RebuiltFiles files,
            List<DataFile> late,
            TableMetadata current,
            long pinned,
            int maxWriters,
            RebuildJournal journal) {
        WriterMarkers markers = WriterMarkers.of(current, maxWriters);
        if (!markers.dropped().isEmpty()) {
            LOG.warn(
                    "floe: the rebuild of {} keeps the progress of the newest {} writers of a kind; it drops"
                            + " that of {} (raise floe.rebuild.writer-markers to keep more)",
                    scratch.name(),
                    maxWriters,
                    markers.dropped());
        }
        for (Map<String, String> older : markers.belowInCommitOrder()) {
            AppendFiles marker = scratch.newFastAppend();
            older.forEach(marker::set);
            marker.set(WRITER_MARKER, "true");
            marker.commit();
        }
        List<DataFile> known = files.known();
        ManifestFile prewritten = files.prewritten();
        if (known.isEmpty() && late.isEmpty() && markers.head().isEmpty()) {
            return; // nothing to hold, nothing to remember: the rebuilt table has no snapshot
        }
        if (!files.deletes().isEmpty()) {
            commitWithDeletes(scratch, files, late, markers, pinned);
            return;
        }
        AppendFiles append = scratch.newFastAppend();
        if (prewritten != null) {
            append.appendManifest(prewritten);
            ManifestFile lateManifest = PrewrittenManifest.write(scratch, late, journal);
            if (lateManifest != null) {
                append.appendManifest(lateManifest);
            }
            long bytes = bytesOf(known) + bytesOf(late);
            if (bytes > 0) {
                append.set(SnapshotSummary.ADDED_FILE_SIZE_PROP, Long.toString(bytes));
            }
        } else {
            // a format-1 table copies appended manifests: its files are appended one by one, and
            // Iceberg counts their bytes itself
            known.forEach(append::appendFile);
            late.forEach(append::appendFile);
        }
        markers.head().forEach(append::set);
        append.set(REBUILD_OF, Long.toString(pinned));
        append.set(RebuildPlanner.SINCE_FULL, Integer.toString(files.sinceFull()));
        append.commit();
    }

    /**
     * The one snapshot as a row delta: the kept files with the position deletes (deletion vectors)
     * that apply to them, all with this snapshot's sequence number, so each delete applies to the
     * rows of the file it names, as before; rewritten files have new names, and no equality delete
     * is kept ({@link RebuildPlanner}). Iceberg writes the manifests itself here.
     */
    private static void commitWithDeletes(
            Table scratch, RebuiltFiles files, List<DataFile> late, WriterMarkers markers, long pinned) {
        RowDelta delta = scratch.newRowDelta();
        files.known().forEach(delta::addRows);
        late.forEach(delta::addRows);
        files.deletes().forEach(delta::addDeletes);
        markers.head().forEach(delta::set);
        delta.set(REBUILD_OF, Long.toString(pinned));
        delta.set(RebuildPlanner.SINCE_FULL, Integer.toString(files.sinceFull()));
        delta.commit();
    }

    private static long bytesOf(List<DataFile> files) {
        return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    }
}
