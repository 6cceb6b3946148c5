package dev.floe.runtime.install;

import dev.floe.runtime.seam.RebuildJournal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotParser;
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
            int maxWriters,
            RebuildJournal journal) {
        Set<Long> kept = new HashSet<>();
        window.kept(current, System.currentTimeMillis()).forEach(s -> kept.add(s.snapshotId()));
        TableMetadata stripped = TableMetadata.buildFrom(current)
                .removeSnapshots(current.snapshots())
                .setProperties(extraProperties)
                .build();
        StagedOperations staged = new StagedOperations(liveOps, stripped, journal::fileStarted);
        Table target = new BaseTable(staged, "floe-rebuild-of-" + current.uuid());
        RebuiltSnapshotCommit.commit(target, files, prewritten, current, pinned, maxWriters, kept, journal);
        TableMetadata made = staged.current();
        if (kept.isEmpty() || made.currentSnapshot() == null) {
            return made;
        }
        return onTopOf(current, made, extraProperties, kept);
    }

    /**
     * {@code current} with the snapshots outside {@code kept} removed and the snapshots {@code made}
     * holds moved on top of its head, the newest of them (the rebuilt one) as a {@code replace}.
     */
    static TableMetadata onTopOf(
            TableMetadata current, TableMetadata made, Map<String, String> extraProperties, Set<Long> kept) {
        List<Snapshot> expired = new ArrayList<>();
        for (Snapshot snapshot : current.snapshots()) {
            if (!kept.contains(snapshot.snapshotId())) {
                expired.add(snapshot);
            }
        }
        List<Snapshot> chain = new ArrayList<>();
        for (Snapshot s = made.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : made.snapshot(s.parentId())) {
            chain.add(s);
        }
        Collections.reverse(chain);
        TableMetadata.Builder builder =
                TableMetadata.buildFrom(current).setProperties(extraProperties).removeSnapshots(expired);
        long head = current.currentSnapshot().snapshotId();
        Snapshot moved = null;
        for (int i = 0; i < chain.size(); i++) {
            Snapshot snapshot = chain.get(i);
            boolean rebuilt = i == chain.size() - 1;
            moved = moved(
                    snapshot,
                    i == 0 ? head : snapshot.parentId(),
                    rebuilt ? DataOperations.REPLACE : snapshot.operation());
            builder.addSnapshot(moved);
        }
        builder.setBranchSnapshot(moved.snapshotId(), SnapshotRef.MAIN_BRANCH);
        return builder.build();
    }

    private static final Pattern OWN_ID = Pattern.compile("\"snapshot-id\"\\s*:\\s*(-?\\d+)");
    private static final Pattern PARENT = Pattern.compile(",\\s*\"parent-snapshot-id\"\\s*:\\s*-?\\d+");
    private static final Pattern OPERATION =
            Pattern.compile("\"summary\"\\s*:\\s*\\{\\s*\"operation\"\\s*:\\s*\"[a-z]+\"");

    /**
     * {@code snapshot} with {@code parent} as its parent and {@code operation} as its operation,
     * through the JSON Iceberg writes for it ({@code parent-snapshot-id} right after {@code
     * snapshot-id}, {@code operation} first in {@code summary}). Edited as text, not with Jackson:
     * Iceberg's runtime jars for Spark and Flink relocate Jackson, so no Jackson type may appear in a
     * call to Iceberg. The snapshot read back is checked, so an Iceberg that writes it otherwise fails
     * the rebuild instead of installing a wrong snapshot.
     */
    static Snapshot moved(Snapshot snapshot, long parent, String operation) {
        String json = PARENT.matcher(SnapshotParser.toJson(snapshot)).replaceFirst("");
        Matcher id = OWN_ID.matcher(json);
        if (!id.find()) {
            throw new IllegalStateException("Iceberg wrote snapshot " + snapshot.snapshotId() + " without its id");
        }
        json = json.substring(0, id.end()) + ",\"parent-snapshot-id\":" + parent + json.substring(id.end());
        json = OPERATION.matcher(json).replaceFirst("\"summary\":{\"operation\":\"" + operation + "\"");
        Snapshot moved = SnapshotParser.fromJson(json);
        if (moved.snapshotId() != snapshot.snapshotId()
                || !Long.valueOf(parent).equals(moved.parentId())
                || !operation.equals(moved.operation())
                || moved.sequenceNumber() != snapshot.sequenceNumber()
                || !Objects.equals(moved.manifestListLocation(), snapshot.manifestListLocation())
                || !Objects.equals(withoutOperation(moved), withoutOperation(snapshot))) {
            throw new IllegalStateException("Cannot move snapshot " + snapshot.snapshotId() + " onto " + parent
                    + ": this Iceberg writes snapshots in a form floe does not know");
        }
        return moved;
    }

    private static Map<String, String> withoutOperation(Snapshot snapshot) {
        Map<String, String> summary = new java.util.HashMap<>(snapshot.summary());
        summary.remove("operation");
        return summary;
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
