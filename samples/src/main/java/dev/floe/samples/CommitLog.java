package dev.floe.samples;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.events.CreateSnapshotEvent;
import org.apache.iceberg.events.Listeners;

/**
 * What the upsert host committed, as it committed it: the snapshot id of each of its commits and
 * the equality delete files each wrote. Each commit marks its snapshot's summary with {@value
 * #COMMIT_KEY} (its number), as exactly-once sinks mark theirs with their progress; the snapshot id
 * is taken from Iceberg's {@link CreateSnapshotEvent} of that commit, on the committing thread, so it
 * is the commit's own even when someone else rewrites the table right after it.
 */
final class CommitLog {
    /** The snapshot summary key of the host's commit number. */
    static final String COMMIT_KEY = "upsert.commit";

    private final Thread committer;
    private final Set<Long> snapshotsAtStart = new HashSet<>();
    private final Map<Long, Long> commitOfSnapshot = new ConcurrentHashMap<>();
    private final Set<Long> identified = ConcurrentHashMap.newKeySet();
    /** Snapshots another writer made on top of one of this run's commits, and that commit. */
    private final Map<Long, Long> commitUnder = new ConcurrentHashMap<>();

    private final Map<String, Long> commitOfDelete = new HashMap<>();
    private final Map<Long, List<String>> deletesOfCommit = new HashMap<>();
    private int unidentified;

    /** Listens on the calling thread's commits from now on; {@code table}'s snapshots predate the run. */
    CommitLog(Table table) {
        this.committer = Thread.currentThread();
        for (Snapshot snapshot : table.snapshots()) {
            snapshotsAtStart.add(snapshot.snapshotId());
        }
        Listeners.register(this::created, CreateSnapshotEvent.class);
    }

    private void created(CreateSnapshotEvent event) {
        String commit = event.summary() == null ? null : event.summary().get(COMMIT_KEY);
        if (Thread.currentThread() == committer && commit != null) {
            commitOfSnapshot.putIfAbsent(event.snapshotId(), Long.parseLong(commit));
            identified.add(Long.parseLong(commit));
        }
    }

    /** Commit {@code commit} is about to commit {@code deletes}. */
    void writing(long commit, List<DeleteFile> deletes) {
        List<String> paths = new ArrayList<>();
        for (DeleteFile delete : deletes) {
            commitOfDelete.put(delete.location(), commit);
            paths.add(delete.location());
        }
        deletesOfCommit.put(commit, paths);
    }

    /**
     * Commit {@code commit} returned: if Iceberg's event named no snapshot of it, takes {@code
     * handle}'s current snapshot when its summary says it is that commit's.
     */
    void committed(long commit, Table handle) {
        noteOthers(handle);
        if (identified.contains(commit)) {
            return;
        }
        Snapshot current = handle.currentSnapshot();
        if (current != null && Long.toString(commit).equals(current.summary().get(COMMIT_KEY))) {
            commitOfSnapshot.putIfAbsent(current.snapshotId(), commit);
            identified.add(commit);
        } else {
            unidentified++;
        }
    }

    /**
     * Notes the snapshots of others in {@code handle}'s history since the run began that only
     * rewrote manifests on top of one of this run's commits (a manifest merge: a {@code replace}
     * that adds and removes no file), each with that commit: such a snapshot holds its rows, and a
     * rebuild may pin it.
     */
    private void noteOthers(Table handle) {
        for (Snapshot snapshot : handle.snapshots()) {
            long id = snapshot.snapshotId();
            if (commitOfSnapshot.containsKey(id) || commitUnder.containsKey(id) || snapshotsAtStart.contains(id)) {
                continue;
            }
            Snapshot cursor = snapshot;
            while (cursor != null && rewritesOnlyManifests(cursor) && cursor.parentId() != null) {
                cursor = handle.snapshot(cursor.parentId());
                Long commit = cursor == null ? null : commitOfSnapshot.get(cursor.snapshotId());
                if (commit != null) {
                    commitUnder.put(id, commit);
                    break;
                }
            }
        }
    }

    private static boolean rewritesOnlyManifests(Snapshot snapshot) {
        Map<String, String> summary = snapshot.summary();
        if (!"replace".equals(snapshot.operation()) || summary == null) {
            return false;
        }
        for (String moved :
                List.of("added-data-files", "deleted-data-files", "added-delete-files", "removed-delete-files")) {
            if (!"0".equals(summary.getOrDefault(moved, "0"))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The host's commit whose rows snapshot {@code snapshotId} holds, another writer having only
     * rewritten manifests on top of it; null if it is not such a snapshot.
     */
    Long commitUnder(long snapshotId) {
        return commitUnder.get(snapshotId);
    }

    /** The number of the host's commit that made snapshot {@code snapshotId}, or null: none of this run's. */
    Long commitOf(long snapshotId) {
        return commitOfSnapshot.get(snapshotId);
    }

    /** The commit that wrote the delete file at {@code path}, or null: none of this run's. */
    Long commitOfDelete(String path) {
        return commitOfDelete.get(path);
    }

    /** The delete files commit {@code commit} wrote. */
    List<String> deletesOf(long commit) {
        return deletesOfCommit.getOrDefault(commit, List.of());
    }

    /** Whether the table had snapshot {@code snapshotId} before this run. */
    boolean predatesTheRun(long snapshotId) {
        return snapshotsAtStart.contains(snapshotId);
    }

    /** Commits whose snapshot id neither Iceberg's event nor the handle gave. */
    int unidentified() {
        return unidentified;
    }
}
