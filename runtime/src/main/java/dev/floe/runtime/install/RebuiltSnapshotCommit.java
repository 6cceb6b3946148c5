package dev.floe.runtime.install;

import dev.floe.runtime.seam.RebuildJournal;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.util.ContentFileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Step 5 of a rebuild, under the gate: commits the rebuilt files to the scratch table as its one
 * snapshot, carrying the writers' markers of the snapshots it replaces ({@link WriterMarkers}).
 *
 * <p>The files listed before the gate come as their pre-written manifests ({@link
 * PrewrittenManifest}), the ones carried since as small manifests of their own; deletes (kept,
 * carried, rebased) go in delete manifests, each file with the data sequence number that makes it
 * apply to the rows it applied to. Iceberg counts the files and rows of an appended manifest but not
 * their bytes, so the commit states the bytes itself: the rebuilt snapshot's totals ({@code
 * total-files-size}, {@code total-records}, {@code total-data-files}) are those of its files, and
 * every later append adds onto true figures.
 */
final class RebuiltSnapshotCommit {
    static final String WRITER_MARKER = "floe.writer-marker";
    private static final Logger LOG = LoggerFactory.getLogger(RebuiltSnapshotCommit.class);

    private RebuiltSnapshotCommit() {}

    /**
     * @param files what the rebuilt snapshot lists
     * @param prewritten its manifests written before the gate
     * @param current the live table as read under the gate: whose snapshots the rebuild replaces
     * @param kept the ids of the snapshots of {@code current} the rebuilt one goes on top of: the
     *     writers found in them need no marker
     * @param summary more entries for the rebuilt snapshot's summary
     */
    static void commit(
            Table scratch,
            RebuiltFiles files,
            PrewrittenManifest prewritten,
            TableMetadata current,
            long pinned,
            int maxWriters,
            Set<Long> kept,
            Map<String, String> summary,
            RebuildJournal journal) {
        WriterMarkers markers = WriterMarkers.of(current, maxWriters, kept);
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
        if (files.isEmpty() && markers.head().isEmpty()) {
            return; // nothing to hold, nothing to remember: the rebuilt table has no snapshot
        }
        AppendFiles append = scratch.newFastAppend();
        if (((HasTableOperations) scratch).operations().current().formatVersion() >= 2) {
            prewritten.completedFor(scratch, files, journal).forEach(append::appendManifest);
            long bytes = files.bytes();
            if (bytes > 0) {
                append.set(SnapshotSummary.ADDED_FILE_SIZE_PROP, Long.toString(bytes));
            }
            stateDeleteCounts(append, files);
        } else {
            // a format-1 table copies appended manifests (and has no deletes): its files are
            // appended one by one, and Iceberg counts their bytes itself
            files.dataFiles().forEach(append::appendFile);
        }
        markers.head().forEach(append::set);
        append.set(RebuiltFiles.REBUILD_OF, Long.toString(pinned));
        append.set(RebuiltFiles.SINCE_FULL, Integer.toString(files.sinceFull()));
        summary.forEach(append::set);
        append.commit();
    }

    /**
     * The delete counts of an appended delete manifest, which Iceberg leaves out of the summary (and
     * so out of its totals): stated from the files themselves.
     */
    private static void stateDeleteCounts(AppendFiles append, RebuiltFiles files) {
        long positions = 0;
        long equalities = 0;
        long positionFiles = 0;
        long equalityFiles = 0;
        long vectors = 0;
        for (DeleteFile delete : files.deletes()) {
            if (delete.content() == FileContent.EQUALITY_DELETES) {
                equalities += delete.recordCount();
                equalityFiles += 1;
            } else {
                positions += delete.recordCount();
                if (ContentFileUtil.isDV(delete)) {
                    vectors += 1;
                } else {
                    positionFiles += 1;
                }
            }
        }
        setIfPositive(append, SnapshotSummary.ADDED_POS_DELETES_PROP, positions);
        setIfPositive(append, SnapshotSummary.ADDED_EQ_DELETES_PROP, equalities);
        setIfPositive(append, SnapshotSummary.ADD_POS_DELETE_FILES_PROP, positionFiles);
        setIfPositive(append, SnapshotSummary.ADD_EQ_DELETE_FILES_PROP, equalityFiles);
        setIfPositive(append, SnapshotSummary.ADDED_DVS_PROP, vectors);
    }

    private static void setIfPositive(AppendFiles append, String property, long value) {
        if (value > 0) {
            append.set(property, Long.toString(value));
        }
    }
}
