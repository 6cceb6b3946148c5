package dev.floe.runtime.upkeep;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.CrashPoint;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.ReachableFiles;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.ReclaimJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs reclaim jobs: deletes, after the grace window, the files a swap retired. By reference,
 * never by directory: a file is deleted only if a retired metadata file references it and the live
 * table, read again just before deleting, does not.
 */
public final class Reclaimer {
    private static final Logger LOG = LoggerFactory.getLogger(Reclaimer.class);

    private final RebuildCatalog catalog;

    public Reclaimer(RebuildCatalog catalog) {
        this.catalog = catalog;
    }

    public Reclaimer(MapDbCatalog catalog) {
        this(new MapDbRebuildCatalog(catalog));
    }

    /** What a table references, as read for one run of its jobs. */
    private record Live(ReachableFiles files, FileIO io) {}

    /** What one run deleted. */
    public record Result(int jobs, int filesDeleted, int filesKept) {}

    /** Every recorded job, due or not. */
    public List<ReclaimJob> pending() {
        List<ReclaimJob> jobs = new ArrayList<>();
        for (Map.Entry<String, String> entry :
                catalog.state().entries(ReclaimJob.SECTION).entrySet()) {
            jobs.add(ReclaimJob.decode(entry.getKey(), entry.getValue()));
        }
        return jobs;
    }

    /** Runs the jobs whose grace window has passed by {@code now}. */
    public Result runDue(Instant now) {
        int jobs = 0;
        int deleted = 0;
        int kept = 0;
        // what each table references, read once for all its due jobs (with history kept, thousands of
        // snapshots' manifest lists); each job adds its own rebuilt metadata to a copy
        Map<org.apache.iceberg.catalog.TableIdentifier, Live> live = new java.util.HashMap<>();
        for (ReclaimJob job : pending()) {
            if (!job.isDue(now)) {
                continue;
            }
            Result one = run(job, live);
            jobs += one.jobs();
            deleted += one.filesDeleted();
            kept += one.filesKept();
        }
        return new Result(jobs, deleted, kept);
    }

    /** Runs every job now, due or not. */
    public Result runAll() {
        return runDue(Instant.MAX);
    }

    /**
     * Turns a job's retired metadata files into the full list of files to delete, and records that
     * list, so the job can finish even after some of those files are gone. Null when the table is
     * gone.
     */
    public ReclaimJob expand(ReclaimJob job) {
        if (job.expanded()) {
            return job;
        }
        FileIO io = ioOf(job);
        if (io == null) {
            return null;
        }
        ReachableFiles retired = new ReachableFiles(io, false);
        for (String metadataLocation : job.paths()) {
            retired.files().add(metadataLocation);
            try {
                retired.add(TableMetadataParser.read(io, metadataLocation));
            } catch (NotFoundException e) {
                // already deleted by an earlier, interrupted run: nothing more to find through it
            }
        }
        Set<String> live = liveFiles(job, new java.util.HashMap<>());
        if (live == null) {
            return null;
        }
        List<String> toDelete = new ArrayList<>();
        for (String file : retired.files()) {
            if (!live.contains(file)) {
                toDelete.add(file);
            }
        }
        ReclaimJob expanded = job.expandedTo(toDelete);
        catalog.state().put(ReclaimJob.SECTION, job.id(), expanded.encode());
        return expanded;
    }

    private Result run(ReclaimJob job, Map<org.apache.iceberg.catalog.TableIdentifier, Live> known) {
        ReclaimJob expanded = expand(job);
        Set<String> live = expanded == null ? null : liveFiles(expanded, known);
        if (live == null) {
            LOG.warn(
                    "floe: reclaim job {} waits: table {} is gone (renamed or dropped), so which of its retired"
                            + " files are still in use cannot be told; it runs once the table is back",
                    job.id(),
                    job.table());
            return new Result(0, 0, 0);
        }
        FileIO io = ioOf(expanded);
        int deleted = 0;
        int kept = 0;
        for (String file : expanded.paths()) {
            if (live.contains(file)) {
                kept += 1; // referenced again since the job was expanded: never delete a live file
                continue;
            }
            try {
                io.deleteFile(file);
                deleted += 1;
                CrashPoint.reach("reclaim.deleting");
            } catch (NotFoundException e) {
                // gone already
            }
        }
        catalog.state().remove(ReclaimJob.SECTION, job.id());
        LOG.info("floe: reclaimed {} files retired by the rebuild of {}", deleted, job.table());
        return new Result(1, deleted, kept);
    }

    /** The FileIO of the job's table; null while the table is gone. */
    private FileIO ioOf(ReclaimJob job) {
        try {
            return catalog.io(job.table());
        } catch (NoSuchTableException e) {
            return null;
        }
    }

    /**
     * Every file that must stay: what the table references now (read once per run for all its jobs,
     * in {@code known}) and what the rebuilt metadata referenced. Null when the table is gone (renamed or dropped): the job then waits, since what
     * the old metadata shares with the table under its new name cannot be told.
     */
    private Set<String> liveFiles(ReclaimJob job, Map<org.apache.iceberg.catalog.TableIdentifier, Live> known) {
        Live read = known.get(job.table());
        if (read == null) {
            HasTableOperations table;
            try {
                table = (HasTableOperations) catalog.loadTableUncached(job.table());
            } catch (NoSuchTableException e) {
                return null;
            }
            FileIO tableIo = table.operations().io();
            read = new Live(new ReachableFiles(tableIo, true), tableIo);
            read.files().add(table.operations().refresh());
            known.put(job.table(), read);
        }
        FileIO io = read.io();
        ReachableFiles keep = read.files().copy();
        if (job.rebuilt() != null && !"null".equals(job.rebuilt())) {
            try {
                keep.add(TableMetadataParser.read(io, job.rebuilt()));
            } catch (NotFoundException e) {
                // the rebuilt table's first metadata file is gone: the table's own metadata history (see
                // floe.rebuild.metadata-versions) dropped it after newer commits, each of which carried the
                // rebuilt snapshot forward, so what it referenced is in the live set above unless the host
                // itself has since removed it
            }
        }
        return keep.files();
    }
}
