package dev.floe.runtime.install;

import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.RebuildJournal;
import dev.floe.runtime.seam.ReclaimJob;
import java.time.Instant;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * How one rebuild attempt's table goes live: the steps of {@link RebuildAttempt} that depend on the
 * catalog (2: where the rebuilt files go, 5: the rebuilt snapshot, 6: the install) and the clean-up
 * of an attempt that ends before its install. {@link ScratchSwap} for floe's own catalog, {@link
 * InPlace} for any other.
 */
public abstract class Installation {
    final RebuildCatalog catalog;
    final TableIdentifier identifier;
    final TableOperations liveOps;
    final RebuildSettings settings;
    final RebuildJournal journal;
    /** Whether the install may have landed: from then on nothing this attempt wrote is deleted. */
    public boolean mayBeLive;

    private final Table target;
    /** How many snapshots of the live table the rebuilt version keeps below the rebuilt one. */
    int historyKept;
    /** The kept snapshots rewritten onto the rebuilt layout, installed with it. */
    HistoryRewrites rewrites = HistoryRewrites.NONE;
    /** The version step 5 staged with history kept (null without): what the install makes live. */
    TableMetadata staged;

    Installation(
            RebuildCatalog catalog,
            TableIdentifier identifier,
            TableOperations liveOps,
            RebuildSettings settings,
            RebuildJournal journal,
            Table target) {
        this.catalog = catalog;
        this.identifier = identifier;
        this.liveOps = liveOps;
        this.settings = settings;
        this.journal = journal;
        this.target = target;
    }

    /** The installation {@code catalog} uses; step 2 (the scratch table, if any) happens here. */
    public static Installation start(
            RebuildCatalog catalog,
            TableIdentifier identifier,
            Table live,
            TableMetadata base,
            RebuildSettings settings,
            RebuildJournal journal) {
        TableOperations liveOps = ((org.apache.iceberg.HasTableOperations) live).operations();
        if (catalog.installsBySwap()) {
            return new ScratchSwap((MapDbRebuildCatalog) catalog, identifier, liveOps, base, settings, journal);
        }
        return new InPlace(catalog, identifier, live, liveOps, settings, journal);
    }

    /**
     * The catalog refused the install because a commit landed first; nothing of it is installed, and
     * what it staged is deleted. In place, step 5 may be made again over the newer version ({@link
     * #installAgain}); a refused swap starts the attempt again.
     */
    public static final class Refused extends RuntimeException {
        private final boolean installAgain;

        Refused(String reason, boolean installAgain) {
            super(reason, null, false, false);
            this.installAgain = installAgain;
        }

        /** Whether the rebuilt files may be installed again over the newer version, without streaming. */
        public boolean installAgain() {
            return installAgain;
        }
    }

    /** The table the rebuilt files and manifests are written for: the scratch table, or the live one. */
    public final Table target() {
        return target;
    }

    /** How many of the live table's snapshots the rebuilt version keeps below the rebuilt one ({@link HistoryWindow}). */
    public final int historyKept() {
        return historyKept;
    }

    /** Whether the rebuilt version keeps {@code current}'s history below it (what {@link HistoryWindow} keeps). */
    public boolean keepsHistory(TableMetadata current) {
        return HistoryWindow.of(settings, current.properties()).keepsAny();
    }

    /** Installs {@code rewrites} with the rebuilt version (when this installation keeps history). */
    public final void rewrite(HistoryRewrites rewrites) {
        this.rewrites = rewrites;
    }

    /** How many kept snapshots the installed version holds rewritten onto the rebuilt files. */
    public final int historyRewritten() {
        return (int) rewrites.ids().stream()
                .filter(id -> rewrites.installedIn(staged, id))
                .count();
    }

    /**
     * After the install: deletes the files of the rewrites the installed version does not hold (their
     * snapshot left the window before it), which the journal, cleared by the install, no longer lists.
     */
    public final void deleteUnusedRewrites() {
        rewrites.deleteUnused(staged, liveOps.io());
    }

    /** The snapshots of {@code rebuilt} that are {@code current}'s: the history it keeps. */
    static int kept(TableMetadata rebuilt, TableMetadata current) {
        return (int) rebuilt.snapshots().stream()
                .filter(s -> current.snapshot(s.snapshotId()) != null)
                .count();
    }

    /** Step 5: the rebuilt snapshot over the snapshots of {@code current}. */
    public abstract void commit(RebuiltFiles files, PrewrittenManifest prewritten, TableMetadata current, long pinned);

    /**
     * Step 6: makes the rebuilt table live, with a reclaim job for what it retires; throws {@link
     * Refused} when the catalog says the table moved since {@code current}.
     */
    public abstract ReclaimJob install(TableMetadata current, List<String> retiredMetadata, Instant due);

    /**
     * An attempt that ends before its install (or whose installation never started): everything
     * {@code journal} lists goes, and the scratch table if there is one; in place, only what the live
     * table does not reference.
     */
    public static void discard(RebuildCatalog catalog, TableOperations liveOps, RebuildJournal journal) {
        if (catalog instanceof MapDbRebuildCatalog mapDb) {
            ScratchTable.discard(mapDb.catalog(), journal);
        } else {
            InPlace.discardUnreferenced(liveOps.refresh(), liveOps.io(), journal);
        }
    }

    /**
     * Deletes the files {@code journal} lists that the live table does not reference, in any catalog
     * (files that were never installed, or were and still are: those stay), and clears it.
     */
    public static void discardUnreferenced(TableOperations liveOps, RebuildJournal journal) {
        InPlace.discardUnreferenced(liveOps.refresh(), liveOps.io(), journal);
    }

    /** The reclaim job of this attempt, with the journal's key as its id. */
    ReclaimJob job(String rebuilt, List<String> retiredMetadata, Instant due) {
        return new ReclaimJob(journal.scratch().toString(), identifier, due, rebuilt, false, retiredMetadata);
    }
}
