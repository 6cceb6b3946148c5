package dev.floe.runtime;

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
abstract class Installation {
    final RebuildCatalog catalog;
    final TableIdentifier identifier;
    final TableOperations liveOps;
    final RebuildSettings settings;
    final RebuildJournal journal;
    /** Whether the install may have landed: from then on nothing this attempt wrote is deleted. */
    boolean mayBeLive;

    private final Table target;

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
    static Installation start(
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

    /** The table the rebuilt files and manifests are written for: the scratch table, or the live one. */
    final Table target() {
        return target;
    }

    /** Step 5: the rebuilt snapshot over the snapshots of {@code current}. */
    abstract void commit(RebuiltFiles files, PrewrittenManifest prewritten, TableMetadata current, long pinned);

    /**
     * Step 6: makes the rebuilt table live, with a reclaim job for what it retires; throws {@link
     * RebuildAttempt.StartAgain} when the catalog says the table moved since {@code current} ({@link
     * RebuildAttempt.Refused} in place, where step 5 may then be made again over the newer version).
     */
    abstract ReclaimJob install(TableMetadata current, List<String> retiredMetadata, Instant due);

    /**
     * An attempt that ends before its install (or whose installation never started): everything
     * {@code journal} lists goes, and the scratch table if there is one; in place, only what the live
     * table does not reference.
     */
    static void discard(RebuildCatalog catalog, TableOperations liveOps, RebuildJournal journal) {
        if (catalog instanceof MapDbRebuildCatalog mapDb) {
            ScratchTable.discard(mapDb.catalog(), journal);
        } else {
            InPlace.discardUnreferenced(liveOps.refresh(), liveOps.io(), journal);
        }
    }

    /** The reclaim job of this attempt, with the journal's key as its id. */
    ReclaimJob job(String rebuilt, List<String> retiredMetadata, Instant due) {
        return new ReclaimJob(journal.scratch().toString(), identifier, due, rebuilt, false, retiredMetadata);
    }
}
