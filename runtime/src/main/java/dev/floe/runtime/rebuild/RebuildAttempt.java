package dev.floe.runtime.rebuild;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildException;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.deltas.CompactionMap;
import dev.floe.runtime.deltas.DeltaRebase;
import dev.floe.runtime.history.HistoryRewrite;
import dev.floe.runtime.install.Installation;
import dev.floe.runtime.install.PrewrittenManifest;
import dev.floe.runtime.install.RebuiltFiles;
import dev.floe.runtime.install.ScratchTable;
import dev.floe.runtime.rows.RollingParquetWriter;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.RebuildJournal;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.upkeep.MetadataHistoryTrim;
import dev.floe.runtime.upkeep.RetiredMetadata;
import java.util.List;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt at rebuilding a table: the compaction flow of docs/DESIGN.md, one method per step,
 * called in order by {@link #run}. A step that finds a commit it cannot carry throws {@link
 * StartAgain}; {@link Compactor} then makes a new attempt from a new base.
 *
 * <p>Any failure before the swap drops the scratch table and deletes every file this attempt wrote
 * ({@link #discardUnlessSwapped}); the live table is untouched.
 */
final class RebuildAttempt {
    private static final Logger LOG = LoggerFactory.getLogger(RebuildAttempt.class);
    /** Catch-up rounds before the gate, at most. */
    private static final int EARLY_ROUNDS = 5;
    /** A round that found at most this many commits is the last before the gate. */
    private static final int FEW_COMMITS = 3;
    /** In place: how many installs one attempt makes while other processes' appends keep landing first. */
    static final int INSTALL_ROUNDS = 5;

    /** Thrown by a step when a commit that landed meanwhile means starting again. */
    static class StartAgain extends RuntimeException {
        StartAgain(String reason) {
            super(reason, null, false, false);
        }
    }

    private final Compactor.Context context;
    private final RebuildCatalog catalog;
    private final TableIdentifier identifier;
    private final TableKey key;
    private final Prune prune;
    private final boolean full;
    private final int number;
    private final RebuildPhases phases = new RebuildPhases();

    // what the steps hand on to each other, in the order they are set
    private Table live;
    private TableOperations liveOps;
    private TableMetadata base;
    private SourceStats before;
    private RebuildJournal journal;
    private Installation installation;
    private RebuildPlan plan;
    private MajorRebuild.Written adopted;
    private RollingParquetWriter.Result written;
    private RowStreamer.Streamed streamed;
    private CompactionMap map;
    private DeltaRebase rebase;
    private TableMetadata midway;
    private PrewrittenManifest prewritten;
    private TableMetadata current;
    private RebuiltFiles rebuilt;
    private List<String> retiredMetadata;
    private ReclaimJob job;
    private boolean gateHeld;

    RebuildAttempt(
            Compactor.Context context,
            RebuildCatalog catalog,
            TableIdentifier identifier,
            Prune prune,
            boolean full,
            int number) {
        this.context = context;
        this.catalog = catalog;
        this.identifier = identifier;
        this.key = new TableKey(catalog.key(), identifier);
        this.prune = prune;
        this.full = full;
        this.number = number;
    }

    /** The rebuild, swapped in and reported; null when it must start again. */
    CompactReport run() {
        pin();
        try {
            startInstallation();
            planRewrite();
            streamRows();
            catchUpBeforeTheGate();
            rewriteOldVersions();
            enterGate();
            catchUpUnderTheGate();
            commitAndInstall();
            CompactReport report = reloadHandlesAndOpenTheGate();
            int retiredFiles = recordReclaim();
            return report.listed(retiredFiles, phases.all());
        } catch (StartAgain again) {
            LOG.info(
                    "floe: rebuild of {} starts again (attempt {} of {}): {}",
                    identifier,
                    number,
                    context.settings().maxAttempts(),
                    again.getMessage());
            return null;
        } catch (RuntimeException e) {
            if (installation != null && installation.mayBeLive) {
                throw e;
            }
            throw new RebuildException("Rebuild of " + identifier + " failed; the live table is untouched: " + e, e);
        } finally {
            if (gateHeld) {
                context.gate().exit(key);
            }
            discardUnlessSwapped();
        }
    }

    /** 1. Pins the base snapshot of the live table, and refuses a table floe cannot rebuild. */
    private void pin() {
        live = catalog.loadTableUncached(identifier);
        liveOps = ((HasTableOperations) live).operations();
        base = liveOps.refresh();
        String refused = RebuildRefusal.of(base);
        if (refused != null) {
            throw new RebuildException("Table " + identifier + " " + refused + "; floe leaves it as it is");
        }
        before = SourceStats.of(live, base.currentSnapshot());
        reached(CompactionStep.PINNED);
        journal = new RebuildJournal(catalog.state(), identifier, ScratchTable.nameFor(identifier));
        journal.begin();
    }

    /**
     * 2. Starts the {@link Installation}: for floe's own catalog the scratch table (the live table's
     * UUID, field ids, spec and location, no snapshot); for any other, the live table itself.
     */
    private void startInstallation() {
        installation = Installation.start(catalog, identifier, live, base, context.settings(), journal);
        reached(CompactionStep.SCRATCH_CREATED);
        phases.end("scratch");
    }

    /**
     * 3a. Plans what to rewrite and what to keep as it is ({@link RebuildPlanner}): settled files
     * and small ones whose tier is not full are kept; the rest is rewritten, per partition.
     */
    private void planRewrite() {
        boolean renumbered =
                installation.target().spec().specId() != base.spec().specId();
        if (context.promotions() != null && !renumbered) {
            // the minor work now, the major apart ({@link MajorSplit})
            MajorSplit.Split split = MajorSplit.split(
                    context.promotions(), catalog, identifier, live, liveOps, base, context.settings(), full, prune);
            plan = split.plan();
            adopted = split.adopted();
        } else {
            plan = RebuildPlanner.plan(live, base, context.settings(), full, prune);
        }
        if (renumbered && !plan.full() && (!plan.deletes().isEmpty() || base.formatVersion() < 2)) {
            // the scratch table numbers the live spec anew; kept files keep the live number, which a
            // row delta (kept deletes) or a format-1 append cannot take: rewrite them instead
            plan = RebuildPlanner.plan(live, base, context.settings(), true, prune);
        }
        context.probe()
                .planned(
                        identifier,
                        plan.rewrittenFiles(),
                        plan.rewrittenRows(),
                        plan.rewrittenBytes(),
                        plan.kept().size(),
                        plan.keptBytes());
        phases.end("plan");
    }

    /**
     * 3b. Writes the files to rewrite into large Parquet files, one group (one partition) at a time
     * ({@link RowStreamer}): files whose row groups are already large are copied row group by row
     * group, the rest streamed row by row, deletes applied, through the prune; the {@link
     * CompactionMap} records where each row went.
     */
    private void streamRows() {
        map = new CompactionMap();
        plan.kept().forEach(file -> map.keep(file.location()));
        RowStreamer streamer = new RowStreamer(
                live,
                base,
                installation.target(),
                context.settings(),
                prune,
                map,
                new StreamRaceWatch(catalog, identifier, liveOps, base),
                (files, rows, bytes) -> context.probe().copied(identifier, files, rows, bytes),
                location -> {
                    journal.fileStarted(location);
                    reached(CompactionStep.FILE_STARTED);
                });
        try {
            streamed = streamer.stream(plan);
        } catch (StreamRaceWatch.Raced raced) {
            throw new StartAgain(raced.getMessage() + " (seen while the rows streamed)");
        }
        written = streamed.written();
        if (adopted != null) {
            written = adopted.standingIn(written, map);
        }
        reached(CompactionStep.ROWS_WRITTEN);
        phases.end("stream");
    }

    /**
     * 4a. Without the gate: rebases what landed during the stream ({@link DeltaRebase}), in rounds
     * (each reads only the commits since the last, until a round finds only a few), trims the
     * metadata those commits left behind, and writes the manifests of every file known so far, so
     * that the gate below waits only for the last few commits.
     */
    private void catchUpBeforeTheGate() {
        rebase = new DeltaRebase(
                live,
                installation.target(),
                base,
                plan.kept(),
                plan.deletes(),
                written.files(),
                map,
                plan.appliedDeletes(),
                plan.groups().stream().anyMatch(RebuildPlan.Group::routed),
                journal);
        midway = base;
        for (int round = 1; round <= EARLY_ROUNDS; round++) {
            TableMetadata now = liveOps.refresh();
            int before = rebase.commits();
            rebased(rebase.since(midway, now));
            midway = now;
            if (rebase.commits() - before <= FEW_COMMITS) {
                break;
            }
        }
        if (context.settings().metadataVersions() > 0) {
            // the commits of a long stream: their forgotten metadata goes now, so the swap's
            // transaction does not prune hundreds of commit-log entries under the gate
            MetadataHistoryTrim.trim(catalog, identifier, midway);
        }
        rebase.flush();
        prewritten = PrewrittenManifest.write(installation.target(), rebuiltFiles(), journal);
        reached(CompactionStep.MANIFEST_WRITTEN);
        phases.end("catch-up");
    }

    /**
     * 4b. Without the gate, when history is kept: the kept snapshots older than {@code
     * floe.history.rewrite-after} are written again over the rebuilt files ({@link HistoryRewrite}),
     * to be installed with them.
     */
    private void rewriteOldVersions() {
        if (installation.keepsHistory(midway)) {
            installation.rewrite(HistoryRewrite.prepare(
                    live,
                    liveOps,
                    midway,
                    base.currentSnapshot(),
                    map,
                    rebuiltFiles().pinned(),
                    context.settings(),
                    SizeTiers.fragmentBytes(context.settings()),
                    prune,
                    context.clock().millis(),
                    journal));
            phases.end("history");
        }
        reached(CompactionStep.HISTORY_REWRITTEN);
    }

    private RebuiltFiles rebuiltFiles() {
        return rebase.content(plan.rebuildsSinceFull());
    }

    /** 4c. Takes the table's gate: host commits wait from here until the handles are reloaded. */
    private void enterGate() {
        context.gate().enter(key);
        gateHeld = true;
        phases.end("gate-wait");
    }

    /** 4d. Under the gate: rebases the commits since the last round before it. */
    private void catchUpUnderTheGate() {
        current = liveOps.refresh();
        rebased(rebase.since(midway, current));
        rebase.flush();
        rebuilt = rebuiltFiles();
        reached(CompactionStep.CAUGHT_UP);
    }

    /**
     * 5 and 6, in place perhaps more than once: the gate covers this process only, so another
     * process's commit may land first and the catalog refuses the install. When what landed is
     * appends, they are carried like those of step 4 and the rebuilt version is staged and installed
     * again, without streaming the table again (a writer in another process appending every few
     * hundred milliseconds would otherwise beat every attempt); anything it cannot rebase, or a table that
     * still moves after {@link #INSTALL_ROUNDS} installs, starts the attempt again.
     */
    private void commitAndInstall() {
        for (int round = 1; ; round++) {
            commitRebuiltSnapshot();
            try {
                install();
                return;
            } catch (Installation.Refused refused) {
                if (!refused.installAgain() || round == INSTALL_ROUNDS) {
                    throw new StartAgain(refused.getMessage());
                }
                TableMetadata now = liveOps.refresh();
                int before = rebase.commits();
                rebased(rebase.since(current, now));
                rebase.flush();
                rebuilt = rebuiltFiles();
                current = now;
                LOG.info(
                        "floe: {} (install {} of {}); rebases the {} commit(s) that landed first and installs again",
                        refused.getMessage(),
                        round,
                        INSTALL_ROUNDS,
                        rebase.commits() - before);
            }
        }
    }

    /** 5. The rebuilt table's one snapshot, carrying the writers' markers: committed or staged. */
    private void commitRebuiltSnapshot() {
        installation.commit(rebuilt, prewritten, current, base.currentSnapshot().snapshotId());
        reached(CompactionStep.SCRATCH_COMMITTED);
        phases.end("commit");
    }

    /**
     * 6. Installs the rebuilt table, with the reclaim job of what it retires: a swap into the live
     * name that compares-and-swaps on the location read under the gate (floe's own catalog), or one
     * commit of the live table's own operations (any other); either way a commit that slipped past
     * the gate makes it fail, never disappear.
     */
    private void install() {
        retiredMetadata = RetiredMetadata.of(catalog, identifier, current);
        job = installation.install(
                current,
                retiredMetadata,
                context.clock().instant().plus(context.settings().reclaimGrace()));
        installation.deleteUnusedRewrites();
        reached(CompactionStep.SWAPPED);
    }

    /**
     * 7. Reloads the host's handles, then opens the gate: a host operation that waited there finds
     * its handle already on the rebuilt table, instead of refreshing it at the same time as this
     * reload (two refreshes of one handle leave it holding another copy of the metadata its operation
     * was built on, which fails the commit once and costs Iceberg's retry back-off). The rebuild is
     * live from here: its line is logged now, before the retired files are listed, as a host may exit
     * at any moment.
     */
    private CompactReport reloadHandlesAndOpenTheGate() {
        if (adopted != null) {
            context.promotions().installed(key, catalog, adopted);
        }
        int reloaded = context.handles().reload(key);
        reached(CompactionStep.HANDLES_RELOADED);
        context.gate().exit(key);
        gateHeld = false;
        phases.end("swap");
        CompactReport report = CompactReport.live(
                identifier,
                base.snapshots().size(),
                before,
                rebuilt,
                streamed,
                plan,
                rebase.commits(),
                installation,
                phases.all(),
                number,
                job.id(),
                reloaded);
        LOG.info("floe: {}", report.summary());
        return report;
    }

    /**
     * 8. Expands the reclaim job into the list of retired files (deleted after the grace window),
     * then deletes the metadata files the live table's log had already forgotten. Returns how many
     * files the job lists, -1 if listing them failed (the next reclaim retries) or if it is done
     * apart: in the agent, on the thread of the major rebuilds ({@link Promotions#afterwards}), as it
     * reads every kept snapshot's manifests and the next rebuild need not wait for that.
     */
    private int recordReclaim() {
        int retiredFiles;
        if (context.listsRetiredApart()) {
            ReclaimJob recorded = job;
            List<String> retired = retiredMetadata;
            TableMetadata over = current;
            context.promotions().afterwards(key, working -> {
                RetiredListing.list(working, identifier, recorded, retired, over, context.settings());
                reached(CompactionStep.RECLAIM_RECORDED);
            });
            retiredFiles = -1;
        } else {
            retiredFiles = RetiredListing.list(catalog, identifier, job, retiredMetadata, current, context.settings());
            reached(CompactionStep.RECLAIM_RECORDED);
        }
        phases.end("reclaim");
        return retiredFiles;
    }

    /** On any failure before the install: the scratch table (if any) and every file this attempt wrote go. */
    private void discardUnlessSwapped() {
        if (journal == null || (installation != null && installation.mayBeLive)) {
            return;
        }
        try {
            Installation.discard(catalog, liveOps, journal);
        } catch (RuntimeException e) {
            LOG.warn(
                    "floe: could not clean up what the unfinished rebuild of {} wrote ({}); recovery will at the next start: {}",
                    identifier,
                    catalog.installsBySwap() ? "scratch table " + journal.scratch() : "its floe-* files",
                    e.toString());
        }
    }

    private static void rebased(String restartReason) {
        if (restartReason != null) {
            throw new StartAgain(restartReason);
        }
    }

    private void reached(CompactionStep step) {
        context.probe().reached(step, identifier);
    }
}
