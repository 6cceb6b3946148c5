package dev.floe.samples;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The delete files of one version of the upsert table, and the check that after its last rebuild by
 * floe (the snapshot whose summary has {@value #REBUILD_OF}, the id of the snapshot the rebuild
 * pinned) the table holds only deletes committed since that pin:
 *
 * <ul>
 *   <li>an equality delete file this host wrote is held only if its commit came after the pinned
 *       snapshot's commit (every earlier one was applied by the rebuild);
 *   <li>every equality delete file of a commit after the rebuilt snapshot is held (nothing dropped
 *       one that still applies);
 *   <li>any other delete file is a position delete or deletion vector floe wrote (its file name says
 *       {@code floe}): what a rebuild writes when it rebases a delete onto its rewritten files.
 * </ul>
 */
final class UpsertDeletes {
    /** The summary key of floe's rebuilt snapshot: the id of the snapshot the rebuild pinned. */
    static final String REBUILD_OF = "floe.rebuild-of-snapshot";

    private UpsertDeletes() {}

    /** Every live delete file of {@code table}'s current snapshot, read from its delete manifests. */
    static List<DeleteFile> held(Table table) throws IOException {
        List<DeleteFile> files = new ArrayList<>();
        Snapshot current = table.currentSnapshot();
        if (current == null) {
            return files;
        }
        for (ManifestFile manifest : current.deleteManifests(table.io())) {
            try (ManifestReader<DeleteFile> reader =
                    ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
                for (DeleteFile file : reader) {
                    files.add(file.copyWithoutStats());
                }
            }
        }
        return files;
    }

    /** The delete files a scan of the current snapshot applies, distinct: all of them, and the equality ones. */
    record Applied(int deleteFiles, int equalityDeleteFiles) {}

    static Applied applied(Table table) throws IOException {
        Set<String> all = new HashSet<>();
        Set<String> equality = new HashSet<>();
        if (table.currentSnapshot() != null) {
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    for (DeleteFile delete : task.deletes()) {
                        all.add(delete.location());
                        if (delete.content() == FileContent.EQUALITY_DELETES) {
                            equality.add(delete.location());
                        }
                    }
                }
            }
        }
        return new Applied(all.size(), equality.size());
    }

    /** {@code eq}, {@code pos} or {@code dv}. */
    static String kind(DeleteFile file) {
        if (file.content() == FileContent.EQUALITY_DELETES) {
            return "eq";
        }
        return file.format() == FileFormat.PUFFIN ? "dv" : "pos";
    }

    /** Whether floe wrote {@code file}: its file name says so. */
    static boolean floes(DeleteFile file) {
        String location = file.location();
        return location.substring(location.lastIndexOf('/') + 1).contains("floe");
    }

    /**
     * {@code kind:dataSequenceNumber:origin} of each of {@code held}, origin {@code c<commit>} for a
     * file of this host's commit, {@code floe} for floe's, {@code other} for any other.
     */
    static String tokens(List<DeleteFile> held, CommitLog log) {
        StringBuilder text = new StringBuilder();
        for (DeleteFile file : held) {
            Long commit = log.commitOfDelete(file.location());
            String origin = commit != null ? "c" + commit : floes(file) ? "floe" : "other";
            text.append(' ')
                    .append(kind(file))
                    .append(':')
                    .append(file.dataSequenceNumber())
                    .append(':')
                    .append(origin);
        }
        return text.toString();
    }

    /** The rebuilt snapshot of {@code table} with the highest sequence number, or null: none. */
    static Snapshot lastRebuild(Table table) {
        Snapshot last = null;
        for (Snapshot snapshot : table.snapshots()) {
            if (snapshot.summary() != null
                    && snapshot.summary().containsKey(REBUILD_OF)
                    && (last == null || snapshot.sequenceNumber() > last.sequenceNumber())) {
                last = snapshot;
            }
        }
        return last;
    }

    /**
     * The check after the last rebuild.
     *
     * @param status {@code none} (no rebuild), {@code skipped} (the last rebuild predates this run),
     *     {@code ok} or {@code violated}
     * @param pinnedCommit the host's commit the rebuild pinned, or null (none, or unknown)
     * @param commitsSince the host's commits after the rebuilt snapshot
     * @param floeFiles delete files floe wrote
     * @param violations what is held that should not be, or missing that should be held
     */
    record SincePin(
            String status,
            Snapshot rebuilt,
            Long pinnedCommit,
            int commitsSince,
            int floeFiles,
            List<String> violations) {}

    static SincePin sincePin(Table table, List<DeleteFile> held, CommitLog log) {
        Snapshot rebuilt = lastRebuild(table);
        if (rebuilt == null) {
            return new SincePin("none", null, null, 0, 0, List.of());
        }
        if (log.predatesTheRun(rebuilt.snapshotId())) {
            return new SincePin("skipped", rebuilt, null, 0, 0, List.of());
        }
        List<String> violations = new ArrayList<>();
        long pinned = Long.parseLong(rebuilt.summary().get(REBUILD_OF));
        Long pinnedCommit = log.commitOf(pinned);
        if (pinnedCommit == null) {
            // a snapshot of another writer that only rewrote manifests (floe merges them between rebuilds)
            pinnedCommit = log.commitUnder(pinned);
        }
        if (pinnedCommit == null) {
            violations.add("the rebuild pinned snapshot " + pinned + ", none of this run's commits");
        }
        // the host's commits since the rebuilt snapshot, whose deletes nothing has applied yet
        Set<Long> since = new TreeSet<>();
        for (Snapshot snapshot : table.snapshots()) {
            String commit =
                    snapshot.summary() == null ? null : snapshot.summary().get(CommitLog.COMMIT_KEY);
            if (snapshot.sequenceNumber() > rebuilt.sequenceNumber() && commit != null) {
                since.add(Long.parseLong(commit));
            }
        }
        Set<String> heldPaths = new HashSet<>();
        int floeFiles = 0;
        for (DeleteFile file : held) {
            heldPaths.add(file.location());
            Long commit = log.commitOfDelete(file.location());
            if (commit != null) {
                if (pinnedCommit != null && commit <= pinnedCommit) {
                    violations.add("commit " + commit + "'s equality delete " + file.location()
                            + " outlived the rebuild that pinned commit " + pinnedCommit);
                }
            } else if (file.content() == FileContent.EQUALITY_DELETES) {
                violations.add("an equality delete this host did not write: " + file.location());
            } else if (floes(file)) {
                floeFiles++;
            } else {
                violations.add("a " + kind(file) + " delete neither this host nor floe wrote: " + file.location());
            }
        }
        for (long commit : since) {
            for (String path : log.deletesOf(commit)) {
                if (!heldPaths.contains(path)) {
                    violations.add("commit " + commit + ", after the rebuild, lost its equality delete " + path);
                }
            }
        }
        return new SincePin(
                violations.isEmpty() ? "ok" : "violated", rebuilt, pinnedCommit, since.size(), floeFiles, violations);
    }
}
