package dev.floe.runtime.rebuild;

import dev.floe.runtime.install.HistoryRewrites;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The one place that decides whether floe can rebuild a table: the rebuild's first step asks it,
 * and so does the operator CLI's dry run, so the two never disagree.
 */
public final class RebuildRefusal {
    private RebuildRefusal() {}

    /**
     * Why a table with this metadata cannot be rebuilt, as the end of a sentence starting with the
     * table's name ("has branch or tag ..."), or null when it can.
     */
    public static String of(TableMetadata metadata) {
        for (Map.Entry<String, SnapshotRef> ref : metadata.refs().entrySet()) {
            if (!SnapshotRef.MAIN_BRANCH.equals(ref.getKey())) {
                return "has branch or tag '" + ref.getKey() + "': a rebuild keeps only main";
            }
        }
        if (metadata.currentSnapshot() == null) {
            return "has no snapshot: nothing to rebuild";
        }
        if (!PropertyUtil.propertyAsBoolean(
                metadata.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT)) {
            return "has gc.enabled=false (its files may belong to another table, and a rebuild deletes the files"
                    + " it retires)";
        }
        Set<Long> onMain = new HashSet<>();
        for (Snapshot s = metadata.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : metadata.snapshot(s.parentId())) {
            onMain.add(s.snapshotId());
        }
        for (Snapshot s : metadata.snapshots()) {
            if (!onMain.contains(s.snapshotId())
                    && !HistoryRewrites.placedByFloe(s) // an old version floe took off main, published before
                    && s.summary().containsKey(SnapshotSummary.STAGED_WAP_ID_PROP)) {
                return "has staged (write-audit-publish) snapshot " + s.snapshotId()
                        + ": a rebuild keeps only the main branch";
            }
        }
        return null;
    }
}
