package dev.floe.runtime.guard;

import dev.floe.runtime.install.RebuiltFiles;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;

/**
 * How large a table has grown, as of one commit: the snapshots since its last rebuild (the history
 * a rebuild keeps below the rebuilt snapshot does not count), its data files and its metadata
 * file's bytes.
 */
public record TableGrowth(int snapshots, long dataFiles, long metadataBytes) {
    /** The growth of {@code metadata}, whose metadata file holds {@code metadataBytes}. */
    static TableGrowth of(TableMetadata metadata, long metadataBytes) {
        Snapshot current = metadata.currentSnapshot();
        long dataFiles = current == null ? 0 : Long.parseLong(current.summary().getOrDefault("total-data-files", "0"));
        return new TableGrowth(snapshotsSinceRebuild(metadata), dataFiles, metadataBytes);
    }

    /**
     * The snapshots of {@code main} from its head down to the newest rebuilt one, both counted (so
     * 1 right after a rebuild, as when a rebuild kept no history); every snapshot of the table when
     * {@code main} holds no rebuilt snapshot.
     */
    public static int snapshotsSinceRebuild(TableMetadata metadata) {
        int count = 0;
        for (Snapshot s = metadata.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : metadata.snapshot(s.parentId())) {
            count += 1;
            Map<String, String> summary = s.summary();
            if (summary != null && summary.containsKey(RebuiltFiles.REBUILD_OF)) {
                return count;
            }
        }
        return metadata.snapshots().size();
    }
}
