package dev.floe.runtime.upkeep;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.install.Installation;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.RebuildJournal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What runs when the runtime opens a catalog: rebuilds a previous process left unfinished are
 * undone (scratch table dropped, the files it wrote deleted), then reclaim jobs that are due run.
 */
public final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    private Recovery() {}

    /** What recovery cleaned up. */
    public record Result(List<TableIdentifier> scratchTablesDiscarded, Reclaimer.Result reclaimed) {}

    public static Result run(MapDbCatalog catalog, Instant now) {
        return run(new MapDbRebuildCatalog(catalog), now);
    }

    public static Result run(RebuildCatalog catalog, Instant now) {
        List<TableIdentifier> discarded = new ArrayList<>();
        // The journal is written before a rebuild writes anything and cleared once it is installed
        // (in the swap's own transaction, for floe's own catalog), so it names every unfinished
        // rebuild; tables are never judged by their names.
        for (RebuildJournal journal : RebuildJournal.unfinished(catalog.state())) {
            if (journal.runningHere()) {
                continue; // a major rebuild of this process, on its own thread
            }
            if (discard(catalog, journal)) {
                discarded.add(journal.scratch());
            }
        }
        Reclaimer.Result reclaimed = new Reclaimer(catalog).runDue(now);
        if (!discarded.isEmpty()) {
            LOG.info("floe: recovery discarded unfinished rebuilds {}", discarded);
        }
        return new Result(discarded, reclaimed);
    }

    /**
     * Floe's own catalog: the scratch table and every file it wrote. Any other, and a major rebuild's
     * journal in any: the files the journal lists that the live table does not reference (an in-place
     * commit, or the rebuild that installed a major rebuild's files, may have landed before the
     * crash); while the live table is gone (renamed or dropped) the journal waits.
     */
    private static boolean discard(RebuildCatalog catalog, RebuildJournal journal) {
        if (catalog instanceof MapDbRebuildCatalog && !journal.major()) {
            Installation.discard(catalog, null, journal);
            return true;
        }
        org.apache.iceberg.TableOperations ops;
        try {
            ops = ((org.apache.iceberg.HasTableOperations) catalog.loadTableUncached(journal.live())).operations();
        } catch (org.apache.iceberg.exceptions.NoSuchTableException gone) {
            LOG.warn(
                    "floe: the unfinished rebuild of {} waits: the table is gone, so which of the files it wrote"
                            + " are in use cannot be told",
                    journal.live());
            return false;
        }
        if (journal.major()) {
            // a rebuild may have installed what it wrote: only what the table does not reference goes
            Installation.discardUnreferenced(ops, journal);
        } else {
            Installation.discard(catalog, ops, journal);
        }
        return true;
    }

    /**
     * The scratch tables of rebuilds a previous process left unfinished, keyed by scratch table,
     * valued by the live table each was rebuilding: what {@link #run} would discard. Reads only.
     */
    public static java.util.Map<TableIdentifier, TableIdentifier> unfinishedRebuilds(MapDbCatalog catalog) {
        return unfinishedRebuilds(new MapDbRebuildCatalog(catalog));
    }

    /**
     * {@link #unfinishedRebuilds(MapDbCatalog)} in any catalog; in place (another catalog than floe's
     * own) the key names the rebuild only: no scratch table exists.
     */
    public static java.util.Map<TableIdentifier, TableIdentifier> unfinishedRebuilds(RebuildCatalog catalog) {
        java.util.Map<TableIdentifier, TableIdentifier> unfinished = new java.util.LinkedHashMap<>();
        for (RebuildJournal journal : RebuildJournal.unfinished(catalog.state())) {
            unfinished.put(journal.scratch(), journal.live());
        }
        return unfinished;
    }
}
