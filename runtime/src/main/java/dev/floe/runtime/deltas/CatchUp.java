package dev.floe.runtime.deltas;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.TableMetadata;

/**
 * Step 4 of a rebuild, its look at the live table: which commits landed between two versions of it
 * (in rounds before the gate, then once more under it), or why the rebuild must start again from
 * a new base. Appends, overwrites, deletes and row deltas are rebased onto the rebuilt files
 * ({@link DeltaRebase}); a schema, spec, sort-order, property, format or location change, an expiry,
 * a branch or tag, a staged snapshot, another writer's rewrite of files ({@code replace}; one of
 * manifests only has nothing to rebase), or a row delta on a format-1 table mean starting again.
 */
public final class CatchUp {
    private CatchUp() {}

    /**
     * Why what landed between {@code base} and {@code current} makes the rebuild start again, or
     * null when its commits can be rebased; reads no manifest, so it is cheap enough to ask while the rows
     * still stream ({@link StreamRaceWatch}).
     */
    public static String conflict(TableMetadata base, TableMetadata current) {
        return conflict(base, current, new ArrayList<>());
    }

    /** {@link #conflict}, collecting the snapshots since {@code base} into {@code newer}, oldest first. */
    public static String conflict(TableMetadata base, TableMetadata current, List<Snapshot> newer) {
        String changed = definitionChange(base, current);
        if (changed != null) {
            return changed;
        }
        long baseId = base.currentSnapshot().snapshotId();
        Snapshot snapshot = current.currentSnapshot();
        while (snapshot != null && snapshot.snapshotId() != baseId) {
            newer.add(snapshot);
            snapshot = snapshot.parentId() == null ? null : current.snapshot(snapshot.parentId());
        }
        if (snapshot == null) {
            return "the base snapshot " + baseId + " is no longer an ancestor of the table";
        }
        Collections.reverse(newer);
        java.util.Set<Long> known = new java.util.HashSet<>();
        base.snapshots().forEach(s -> known.add(s.snapshotId()));
        newer.forEach(s -> known.add(s.snapshotId()));
        if (current.snapshots().size() != base.snapshots().size() + newer.size()
                || current.snapshots().stream().anyMatch(s -> !known.contains(s.snapshotId()))) {
            // a staged snapshot, even one that an expiry of another made the counts hide
            return "a snapshot was staged off the main branch";
        }
        for (Snapshot commit : newer) {
            if (DataOperations.REPLACE.equals(commit.operation()) && !rewritesOnlyManifests(commit)) {
                return "snapshot " + commit.snapshotId() + " is a replace (another writer rewrote files)";
            }
            if (current.formatVersion() < 2 && !DataOperations.APPEND.equals(commit.operation())) {
                return "snapshot " + commit.snapshotId() + " is a " + commit.operation() + " on a format-1 table";
            }
        }
        return null;
    }

    /**
     * A {@code replace} that moved no file, only rewrote manifests (Iceberg's {@code
     * rewriteManifests}, floe's own {@link ManifestMerge}): its files are those of its parent, so
     * there is nothing to rebase. Told by its summary, which counts replaced manifests and no file
     * added or removed.
     */
    public static boolean rewritesOnlyManifests(Snapshot commit) {
        java.util.Map<String, String> summary = commit.summary();
        if (summary == null || !summary.containsKey(SnapshotSummary.REPLACED_MANIFESTS_COUNT)) {
            return false;
        }
        for (String moved : MOVED_FILES) {
            if (!"0".equals(summary.getOrDefault(moved, "0"))) {
                return false;
            }
        }
        return true;
    }

    private static final List<String> MOVED_FILES = List.of(
            SnapshotSummary.ADDED_FILES_PROP,
            SnapshotSummary.DELETED_FILES_PROP,
            SnapshotSummary.ADDED_DELETE_FILES_PROP,
            SnapshotSummary.REMOVED_DELETE_FILES_PROP,
            SnapshotSummary.ADDED_RECORDS_PROP,
            SnapshotSummary.DELETED_RECORDS_PROP);

    /** What, besides snapshots, changed between the two versions; null if nothing. */
    private static String definitionChange(TableMetadata base, TableMetadata current) {
        if (base.currentSchemaId() != current.currentSchemaId() || base.lastColumnId() != current.lastColumnId()) {
            return "its schema changed";
        }
        if (base.defaultSpecId() != current.defaultSpecId()
                || base.specs().size() != current.specs().size()) {
            return "its partition spec changed";
        }
        if (base.defaultSortOrderId() != current.defaultSortOrderId()) {
            return "its sort order changed";
        }
        if (!Objects.equals(base.properties(), current.properties())) {
            return "its properties changed";
        }
        if (base.snapshots().size() > current.snapshots().size()) {
            return "snapshots were expired";
        }
        if (base.formatVersion() != current.formatVersion()) {
            return "its format version changed";
        }
        if (!Objects.equals(base.location(), current.location())) {
            return "its location changed";
        }
        if (!current.refs().keySet().equals(java.util.Set.of(org.apache.iceberg.SnapshotRef.MAIN_BRANCH))) {
            return "a branch or tag was created";
        }
        return null;
    }
}
