package dev.floe.runtime.rebuild;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableBusyException;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildCatalog;
import java.time.Clock;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuild-and-swap: rebuilds a live table into a few large ZSTD Parquet files with exactly one
 * snapshot and swaps it into the live name; files already settled are kept as they are, and only
 * small files (and files whose deletes are due) are rewritten ({@link RebuildPlanner}). Each try is a {@link RebuildAttempt}, whose methods are
 * the steps of docs/DESIGN.md's compaction flow: pin, scratch, stream, catch-up (before and under
 * the gate), commit, swap, reload, reclaim. An attempt that meets a commit it cannot carry (anything
 * but an append) starts again from a new base, a bounded number of times.
 *
 * <p>Any failure before the swap leaves the live table untouched and is thrown as a {@link
 * RebuildException}.
 */
public final class Compactor {
    private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

    /** What every attempt of this compactor shares. */
    record Context(
            RebuildSettings settings,
            WriterGate gate,
            HandleRegistry handles,
            CompactionProbe probe,
            Clock clock,
            Promotions promotions) {

        /** Where a rebuild's last step (listing what it retired) runs: apart when promotions are, else in it. */
        boolean listsRetiredApart() {
            return promotions != null;
        }
    }

    private final Context context;

    public Compactor(
            RebuildSettings settings, WriterGate gate, HandleRegistry handles, CompactionProbe probe, Clock clock) {
        this(settings, gate, handles, probe, clock, null);
    }

    /**
     * A compactor whose rebuilds set their major work apart ({@link MajorSplit}) for {@code
     * promotions} to write on a thread of its own; null packs every group in the rebuild itself.
     */
    public Compactor(
            RebuildSettings settings,
            WriterGate gate,
            HandleRegistry handles,
            CompactionProbe probe,
            Clock clock,
            Promotions promotions) {
        this.context = new Context(settings, gate, handles, probe, clock, promotions);
    }

    /** A compactor with its own gate and no tracked handles, for use without the agent. */
    public Compactor(RebuildSettings settings) {
        this(settings, new WriterGate(), new HandleRegistry(0), CompactionProbe.NONE, Clock.systemUTC());
    }

    /**
     * Rebuilds {@code identifier} and swaps the result into its name.
     *
     * @throws RebuildException if the table cannot be rebuilt ({@link RebuildRefusal}) or the
     *     rebuild failed; the live table is then exactly as it was
     * @throws TableBusyException if commits other than appends raced every attempt
     */
    public CompactReport compactTable(MapDbCatalog catalog, TableIdentifier identifier, Prune prune) {
        return compactTable(new MapDbRebuildCatalog(catalog), identifier, prune);
    }

    /**
     * {@link #compactTable(MapDbCatalog, TableIdentifier, Prune)} in any catalog floe can rebuild a
     * table in: swapped into the name in floe's own, committed in place in any other.
     */
    public CompactReport compactTable(RebuildCatalog catalog, TableIdentifier identifier, Prune prune) {
        return compactTable(catalog, identifier, prune, false);
    }

    /**
     * {@link #compactTable(RebuildCatalog, TableIdentifier, Prune)}, rewriting every file when {@code
     * full} (every delete applied, every file packed anew), else only what {@link RebuildPlanner}
     * chooses (and whole every {@link RebuildSettings#fullEvery} rebuilds).
     */
    public CompactReport compactTable(RebuildCatalog catalog, TableIdentifier identifier, Prune prune, boolean full) {
        int attempts = context.settings().maxAttempts();
        for (int attempt = 1; attempt <= attempts; attempt++) {
            CompactReport report = new RebuildAttempt(context, catalog, identifier, prune, full, attempt).run();
            if (report != null) {
                LOG.debug("floe: {}", report.summary());
                return report;
            }
        }
        throw new TableBusyException("Table "
                + identifier
                + " is busy: commits other than appends landed during each of "
                + attempts
                + " rebuild attempts, so it was left as it is (a rebuild carries appends that land while it"
                + " runs, and starts again on anything else).");
    }
}
