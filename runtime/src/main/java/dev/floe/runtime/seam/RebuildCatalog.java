package dev.floe.runtime.seam;

import java.util.Collection;
import java.util.NavigableMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;

/**
 * A catalog floe can rebuild a table in: what the rebuild, the reclaim and the recovery need of it,
 * and how a rebuilt table goes live there ({@link #installsBySwap}). The runtime depends on this,
 * not on one catalog class: {@link MapDbRebuildCatalog} installs by swapping a scratch table into
 * the name, {@link IcebergRebuildCatalog} (any other Iceberg catalog) commits in place.
 */
public interface RebuildCatalog {
    String name();

    /**
     * What tells this catalog apart in this JVM: the {@link TableKey#catalog()} of its tables, the
     * same for every instance of one catalog (empty for floe's embedded one).
     */
    String key();

    /** The FileIO that reads and deletes {@code table}'s files. */
    FileIO io(TableIdentifier table);

    /** A handle nobody else holds: the rebuild refreshes it as it likes. */
    Table loadTableUncached(TableIdentifier table);

    /**
     * The metadata location {@code table} points at now, asked often while rows stream: from memory
     * where the catalog keeps its pointers there, otherwise through {@code liveOps} at a bounded rate.
     */
    String currentLocation(TableIdentifier table, TableOperations liveOps);

    /** floe's durable records for the tables of this catalog. */
    FloeState state();

    /**
     * Metadata files of {@code table} this catalog remembers on its own, beyond the table's metadata
     * log (a MapDbCatalog's commit log), sequence to location; empty when it keeps none.
     */
    NavigableMap<Long, String> commitLog(TableIdentifier table);

    /** Forgets entries of {@link #commitLog} whose files were deleted; how many were there. */
    int forgetCommits(TableIdentifier table, Collection<Long> sequences);

    /**
     * True when a rebuilt table goes live by a swap of a scratch table into the name (floe's own
     * catalog, {@link MapDbRebuildCatalog}); false when it is committed in place through the live
     * table's own operations.
     */
    boolean installsBySwap();
}
