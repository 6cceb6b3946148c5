package dev.floe.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;

/**
 * Step 4 of a rebuild: what landed on the live table between two versions of it (in rounds before
 * the gate, then once more under it). Commits that only appended are carried into the rebuilt
 * table with their data files as
 * they are; anything else (an overwrite, a delete, a row delta, a schema, spec, sort-order or
 * property change, an expiry) means the rebuild must start again from the new base.
 */
final class CatchUp {
    /** Either the data files to carry over, or why the rebuild must start again. */
    record Result(List<DataFile> appended, long appendedRows, int commits, String restartReason) {
        boolean mustRestart() {
            return restartReason != null;
        }

        /** This catch-up followed by {@code next}. */
        Result then(Result next) {
            List<DataFile> all = new ArrayList<>(appended);
            all.addAll(next.appended);
            return new Result(List.copyOf(all), appendedRows + next.appendedRows, commits + next.commits, null);
        }
    }

    private CatchUp() {}

    static Result since(TableMetadata base, TableMetadata current, FileIO io) {
        List<Snapshot> newer = new ArrayList<>();
        String conflict = conflict(base, current, newer);
        if (conflict != null) {
            return restart(conflict);
        }
        List<DataFile> appended = new ArrayList<>();
        long rows = 0;
        for (Snapshot commit : newer) {
            for (DataFile file : commit.addedDataFiles(io)) {
                appended.add(file.copy());
                rows += file.recordCount();
            }
        }
        return new Result(List.copyOf(appended), rows, newer.size(), null);
    }

    /**
     * Why what landed between {@code base} and {@code current} makes the rebuild start again, or
     * null when it was only appends; reads no manifest, so it is cheap enough to ask while the rows
     * still stream ({@link StreamRaceWatch}).
     */
    static String conflict(TableMetadata base, TableMetadata current) {
        return conflict(base, current, new ArrayList<>());
    }

    /** {@link #conflict}, collecting the snapshots since {@code base} into {@code newer}, oldest first. */
    private static String conflict(TableMetadata base, TableMetadata current, List<Snapshot> newer) {
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
            if (!DataOperations.APPEND.equals(commit.operation())) {
                return "snapshot " + commit.snapshotId() + " is a " + commit.operation();
            }
        }
        return null;
    }

    private static Result restart(String reason) {
        return new Result(List.of(), 0, 0, reason);
    }

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
