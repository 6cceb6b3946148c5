package dev.floe.runtime.install;

import dev.floe.runtime.seam.RebuildJournal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.io.OutputFile;

/**
 * The rebuilt version of a table, staged in memory over the version read under the gate: the
 * rebuilt snapshot (and the writers' marker snapshots below it, if any), with the history {@link
 * HistoryWindow} keeps below those.
 *
 * <p>Iceberg's own {@code FastAppend} makes the new snapshots, on the live metadata with every
 * snapshot removed ({@link StagedOperations}): same table UUID, schema, spec, sort order,
 * properties (plus {@code extraProperties}), location and last sequence number. With no history
 * kept that is the rebuilt version: exactly one snapshot on {@code main}. With history kept, the new
 * snapshots are then moved on top of the kept ones: the oldest of them takes the head of {@code
 * main} as its parent, the rebuilt snapshot becomes a {@code replace} (the same rows in other
 * files, which Iceberg's incremental readers skip), and the snapshots outside the window are
 * removed. Iceberg has no public way to make a snapshot with another parent or operation, so the
 * move goes through the snapshot's own JSON ({@link SnapshotParser}), the form every catalog stores
 * it in.
 *
 * <p>Built from the live metadata with {@code TableMetadata.buildFrom}, not with {@code
 * ExpireSnapshots}, which deletes files before the catalog commit and refuses tables with {@code
 * gc.enabled=false}. The removed snapshots' files are reclaimed later, by reference, after the
 * grace window.
 */
public final class RebuiltVersion {
    private RebuiltVersion() {}

    /**
     * The rebuilt version of {@code current}, staged but not yet committed: its files are written
     * (each recorded in {@code journal} first), its metadata file is not.
     */
    static TableMetadata stage(
            TableOperations liveOps,
            TableMetadata current,
            Map<String, String> extraProperties,
            RebuiltFiles files,
            PrewrittenManifest prewritten,
            long pinned,
            HistoryWindow window,
            HistoryRewrites rewrites,
            int maxWriters,
            RebuildJournal journal) {
        Set<Long> kept = new HashSet<>();
        // a snapshot rewritten before the gate that left the window since is expired as any other;
        // its rewrite's files go after the install (HistoryRewrites.deleteUnused)
        window.kept(current, System.currentTimeMillis()).forEach(s -> kept.add(s.snapshotId()));
        TableMetadata stripped = TableMetadata.buildFrom(current)
                .removeSnapshots(current.snapshots())
                .setProperties(extraProperties)
                .build();
        StagedOperations staged = new StagedOperations(liveOps, stripped, journal::fileStarted);
        Table target = new BaseTable(staged, "floe-rebuild-of-" + current.uuid());
        RebuiltSnapshotCommit.commit(
                target,
                files,
                prewritten,
                current,
                pinned,
                maxWriters,
                rewrites.ancestral(current, kept),
                rewrites.rebuiltSummary(),
                journal);
        TableMetadata made = staged.current();
        if (kept.isEmpty() || made.currentSnapshot() == null) {
            return made;
        }
        return onTopOf(current, made, extraProperties, kept, rewrites);
    }

    /**
     * {@code current} with the snapshots outside {@code kept} removed, those {@code rewrites} rewrote
     * onto the new layout put in their place, and the snapshots {@code made} holds moved on top of
     * its head, the newest of them (the rebuilt one) as a {@code replace}.
     *
     * <p>A rewritten snapshot has no parent. Neither has any kept snapshot below the newest rewritten
     * one, nor the oldest one above them, which keeps its layout: {@code main}'s ancestry ends there,
     * so an incremental reader positioned on a rewritten snapshot fails as it would on an expired
     * one, instead of reading a layout that no longer tells what each commit added. Those taken off
     * the ancestry without a rewrite are marked {@link HistoryRewrites#ROOTED}, so that the window
     * keeps them ({@link HistoryWindow#history}). Iceberg's {@code TableMetadata.Builder} takes a
     * snapshot with a sequence number below the table's last one only when it has no parent; the
     * snapshots moved on top come after, so the table's last sequence number is the rebuilt
     * snapshot's. {@code main} keeps its own settings, and a re-added snapshot its statistics.
     */
    static TableMetadata onTopOf(
            TableMetadata current,
            TableMetadata made,
            Map<String, String> extraProperties,
            Set<Long> kept,
            HistoryRewrites rewrites) {
        long cut = rewrites.newestRewritten(current, kept);
        List<Snapshot> expired = new ArrayList<>();
        List<Snapshot> readded = new ArrayList<>();
        for (Snapshot snapshot : current.snapshots()) {
            long id = snapshot.snapshotId();
            if (!kept.contains(id)) {
                expired.add(snapshot);
            } else if (rewrites.has(id)) {
                expired.add(snapshot);
                readded.add(rewrites.of(id));
            } else if ((snapshot.sequenceNumber() < cut && !HistoryRewrites.placedByFloe(snapshot))
                    || (snapshot.parentId() != null
                            && kept.contains(snapshot.parentId())
                            && rewrites.has(snapshot.parentId()))) {
                expired.add(snapshot);
                readded.add(SnapshotJson.rooted(snapshot));
            }
        }
        readded.sort(java.util.Comparator.comparingLong(Snapshot::sequenceNumber));
        List<Snapshot> chain = new ArrayList<>();
        for (Snapshot s = made.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : made.snapshot(s.parentId())) {
            chain.add(s);
        }
        Collections.reverse(chain);
        TableMetadata.Builder builder =
                TableMetadata.buildFrom(current).setProperties(extraProperties).removeSnapshots(expired);
        readded.forEach(builder::addSnapshot);
        for (Snapshot snapshot : readded) {
            current.statisticsFiles().stream()
                    .filter(f -> f.snapshotId() == snapshot.snapshotId())
                    .forEach(builder::setStatistics);
            current.partitionStatisticsFiles().stream()
                    .filter(f -> f.snapshotId() == snapshot.snapshotId())
                    .forEach(builder::setPartitionStatistics);
        }
        long head = current.currentSnapshot().snapshotId();
        Long below = rewrites.has(head) && kept.contains(head) ? null : head;
        Snapshot moved = null;
        for (int i = 0; i < chain.size(); i++) {
            Snapshot snapshot = chain.get(i);
            boolean rebuilt = i == chain.size() - 1;
            moved = SnapshotJson.moved(
                    snapshot,
                    i == 0 ? below : snapshot.parentId(),
                    rebuilt ? DataOperations.REPLACE : snapshot.operation());
            builder.addSnapshot(moved);
        }
        SnapshotRef main = current.ref(SnapshotRef.MAIN_BRANCH);
        builder.setRef(
                SnapshotRef.MAIN_BRANCH,
                main == null
                        ? SnapshotRef.branchBuilder(moved.snapshotId()).build()
                        : SnapshotRef.builderFrom(main, moved.snapshotId()).build());
        return builder.build();
    }

    /**
     * Writes {@code rebuilt} to {@code file}, for a scratch table that is swapped into the live name:
     * its metadata log names the live table's metadata files, which the guard's trim deletes once the
     * log forgets them, as after any host commit.
     */
    static void write(TableMetadata rebuilt, OutputFile file) {
        TableMetadataParser.write(rebuilt, file);
    }

    /**
     * Commits {@code rebuilt} over {@code base} through the live table's own operations: throws the
     * catalog's {@code CommitFailedException} when the table moved since {@code base}, and nothing
     * is then installed.
     */
    static void commit(TableOperations liveOps, TableMetadata base, TableMetadata rebuilt) {
        liveOps.commit(base, rebuilt);
    }
}
