package dev.floe.runtime.install;

import dev.floe.runtime.CrashPoint;
import dev.floe.runtime.RebuildException;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.rows.RebuiltTableProperties;
import dev.floe.runtime.seam.ReachableFiles;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.RebuildJournal;
import dev.floe.runtime.seam.ReclaimJob;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;

/**
 * The install of any other catalog: the rebuilt files are written into the live table's own
 * location, the rebuilt version is staged in memory ({@link RebuiltVersion#stage}), and one commit
 * of the live table's own operations installs it. Its reclaim job is recorded before that commit
 * and the journal cleared after it: a crash between the two leaves records that recovery and
 * reclaim settle by reference (a file the live table references is never deleted), whichever way
 * the commit went.
 */
final class InPlace extends Installation {
    private TableMetadata rebuilt;
    private TableMetadata over;
    private PrewrittenManifest prewritten;

    InPlace(
            RebuildCatalog catalog,
            TableIdentifier identifier,
            Table live,
            TableOperations liveOps,
            RebuildSettings settings,
            RebuildJournal journal) {
        super(catalog, identifier, liveOps, settings, journal, live);
    }

    @Override
    public void commit(RebuiltFiles files, PrewrittenManifest prewritten, TableMetadata current, long pinned) {
        this.prewritten = prewritten;
        this.over = current;
        rebuilt = RebuiltVersion.stage(
                liveOps,
                current,
                RebuiltTableProperties.of(settings, current.properties(), true),
                files,
                prewritten,
                pinned,
                HistoryWindow.of(settings, current.properties()),
                rewrites,
                settings.writerMarkers(),
                journal);
        historyKept = kept(rebuilt, current);
        staged = rebuilt;
    }

    @Override
    public ReclaimJob install(TableMetadata current, List<String> retiredMetadata, Instant due) {
        ReclaimJob job = job(null, retiredMetadata, due);
        catalog.state().put(ReclaimJob.SECTION, job.id(), job.encode());
        CrashPoint.reach("inplace.job-recorded");
        try {
            mayBeLive = true;
            RebuiltVersion.commit(liveOps, current, rebuilt);
            CrashPoint.reach("inplace.committed");
        } catch (CommitFailedException e) {
            // another writer's commit landed first (the gate covers only this process): it is kept,
            // and the attempt carries it and installs again, or starts again from it
            mayBeLive = false;
            catalog.state().remove(ReclaimJob.SECTION, job.id());
            unstage();
            throw new Refused("the catalog refused the install of " + identifier + ": " + e.getMessage(), true);
        } catch (CommitStateUnknownException e) {
            throw new RebuildException(
                    "Rebuild of " + identifier + " could not tell whether its commit landed (" + e.getMessage()
                            + "); recovery and reclaim settle it by reference",
                    e);
        }
        journal.clear();
        return job;
    }

    /**
     * After a refused install: deletes what staging the rebuilt version wrote (its manifest lists, and
     * its manifests but the pre-written ones), which no version of the table references; the rebuilt
     * data files and the pre-written manifests stay for the next install, and the kept history's
     * snapshots are the live table's.
     */
    private void unstage() {
        FileIO io = liveOps.io();
        for (org.apache.iceberg.Snapshot snapshot : rebuilt.snapshots()) {
            if (over.snapshot(snapshot.snapshotId()) != null) {
                continue; // kept history: the live table's own
            }
            for (ManifestFile manifest : snapshot.allManifests(io)) {
                if (!prewritten.holds(manifest.path())) {
                    deleteIfThere(io, manifest.path());
                }
            }
            deleteIfThere(io, snapshot.manifestListLocation());
        }
        rebuilt = null;
    }

    private static void deleteIfThere(FileIO io, String file) {
        try {
            io.deleteFile(file);
        } catch (NotFoundException e) {
            // never written
        }
    }

    /**
     * Deletes the files {@code journal} lists that {@code current} does not reference, and clears
     * it: an attempt that did not install, or a crashed one whichever way its commit went.
     */
    static void discardUnreferenced(TableMetadata current, FileIO io, RebuildJournal journal) {
        Set<String> live = ReachableFiles.of(current, io);
        for (String file : journal.files()) {
            if (!live.contains(file)) {
                try {
                    io.deleteFile(file);
                } catch (NotFoundException e) {
                    // never written
                }
            }
        }
        journal.clear();
    }
}
