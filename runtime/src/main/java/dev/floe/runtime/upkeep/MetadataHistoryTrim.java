package dev.floe.runtime.upkeep;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildCatalog;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;

/**
 * Deletes the metadata files of a guarded table that its metadata log no longer lists, on floe's
 * background thread.
 *
 * <p>Every commit writes a new metadata file holding every snapshot since the last rebuild, so
 * between two rebuilds these files are most of a fast-append table's metadata bytes. Iceberg keeps
 * the newest {@code write.metadata.previous-versions-max} in its metadata log (a rebuilt table gets
 * {@link RebuildSettings#metadataVersions()}) and forgets the rest, leaving them on disk unless
 * {@code write.metadata.delete-after-commit.enabled} makes the committing thread delete them, which
 * costs every host commit a wait (HadoopFileIO deletes through a pool and polls for the result).
 * floe deletes them here instead, off the host's thread, by reference: the candidates are the
 * table's commit log in the catalog, older than what a version of the table in memory still lists;
 * the metadata JSON is never read again for it. Deleted entries leave the commit log, which keeps
 * it short too (and the swap that prunes it quick).
 */
public final class MetadataHistoryTrim {
    /**
     * Commit-log entries removed per catalog transaction: host commits wait for the catalog while one
     * runs, so hundreds (a long rebuild's worth) go in small steps.
     */
    static final int FORGET_PER_TRANSACTION = 32;

    private MetadataHistoryTrim() {}

    /**
     * Right after a rebuild's swap: deletes those of the old table's metadata files that its last
     * metadata ({@code last}) no longer listed. They are in the swap's reclaim job too (so a crash
     * before this leaks nothing), which has been expanded through them already; deleting them now
     * keeps them from waiting out the grace window. Returns how many.
     */
    public static int deleteForgotten(
            RebuildCatalog catalog, TableIdentifier table, List<String> retiredMetadata, TableMetadata last) {
        return deleteForgotten(catalog.io(table), retiredMetadata, last);
    }

    /** Deletes those of {@code files} that {@code last} (the table's newest version) does not list. */
    public static int deleteForgotten(FileIO io, Collection<String> files, TableMetadata last) {
        Set<String> listed = listed(last);
        int deleted = 0;
        for (String file : files) {
            if (!listed.contains(file)) {
                deleteQuietly(io, file);
                deleted += 1;
            }
        }
        return deleted;
    }

    /**
     * The metadata files a commit from {@code base} to {@code committed} dropped from the table's
     * metadata log: {@code base}'s file and its log, less what {@code committed}'s log keeps. A
     * shared catalog keeps no commit log of floe's, so these, gathered on the host's thread from the
     * commit's own arguments, are what the trim of such a table deletes.
     */
    public static List<String> forgottenBy(TableMetadata base, TableMetadata committed) {
        if (base == null || committed == null) {
            return List.of();
        }
        Set<String> kept = listed(committed);
        List<String> forgotten = new ArrayList<>();
        base.previousFiles().forEach(entry -> {
            if (!kept.contains(entry.file())) {
                forgotten.add(entry.file());
            }
        });
        String file = base.metadataFileLocation();
        if (file != null && !kept.contains(file)) {
            forgotten.add(file);
        }
        return forgotten;
    }

    private static Set<String> listed(TableMetadata metadata) {
        Set<String> listed = new HashSet<>();
        if (metadata.metadataFileLocation() != null) {
            listed.add(metadata.metadataFileLocation());
        }
        metadata.previousFiles().forEach(entry -> listed.add(entry.file()));
        return listed;
    }

    private static void deleteQuietly(FileIO io, String file) {
        try {
            io.deleteFile(file);
        } catch (NotFoundException e) {
            // deleted already (by Iceberg's own delete-after-commit, say)
        }
    }

    /**
     * Trims {@code table} against {@code seen}, a version of it known in memory (the one a host
     * commit just made, or one a rebuild read): every commit-log entry older than the oldest file
     * {@code seen}'s log lists, and not listed, is deleted. Newer entries (commits since {@code seen})
     * stay whatever they are; after a swap the log holds none of {@code seen}'s files and nothing is
     * deleted. Returns how many files were deleted (or were gone already).
     */
    public static int trim(MapDbCatalog catalog, TableIdentifier table, TableMetadata seen) {
        return trim(new MapDbRebuildCatalog(catalog), table, seen);
    }

    /**
     * The retired metadata files of {@code table} that a reclaim job not yet expanded lists: it finds
     * the retired manifests and data files through them alone (the listing runs after the install,
     * on the guard's second thread, while host commits push those files out of the log). The trim
     * neither deletes nor forgets them until the job is expanded; a later trim does both.
     */
    static Set<String> awaitedByReclaim(RebuildCatalog catalog, TableIdentifier table) {
        Set<String> awaited = new java.util.HashSet<>();
        catalog.state().entries(dev.floe.runtime.seam.ReclaimJob.SECTION).forEach((id, encoded) -> {
            dev.floe.runtime.seam.ReclaimJob job = dev.floe.runtime.seam.ReclaimJob.decode(id, encoded);
            if (!job.expanded() && job.table().equals(table)) {
                awaited.addAll(job.paths());
            }
        });
        return awaited;
    }

    /** {@link #trim(MapDbCatalog, TableIdentifier, TableMetadata)}; nothing for catalogs that keep no commit log. */
    public static int trim(RebuildCatalog catalog, TableIdentifier table, TableMetadata seen) {
        Set<String> listed = listed(seen);
        NavigableMap<Long, String> log = catalog.commitLog(table);
        Long oldestListed = null;
        for (Map.Entry<Long, String> entry : log.entrySet()) {
            if (listed.contains(entry.getValue())) {
                oldestListed = entry.getKey();
                break;
            }
        }
        if (oldestListed == null) {
            return 0;
        }
        List<Long> forget = new ArrayList<>();
        int forgotten = 0;
        Set<String> awaited = awaitedByReclaim(catalog, table);
        for (Map.Entry<Long, String> entry : log.headMap(oldestListed, false).entrySet()) {
            if (awaited.contains(entry.getValue())) {
                // a reclaim job still has to read it: it stays, listed, for a trim after the job's listing
                continue;
            }
            deleteQuietly(catalog.io(table), entry.getValue());
            forget.add(entry.getKey());
            if (forget.size() == FORGET_PER_TRANSACTION) {
                forgotten += forget.size();
                catalog.forgetCommits(table, forget);
                forget.clear();
            }
        }
        catalog.forgetCommits(table, forget);
        return forgotten + forget.size();
    }
}
