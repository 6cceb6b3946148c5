package dev.floe.runtime.seam;

import dev.floe.catalog.MapDbCatalog;
import java.util.Collection;
import java.util.NavigableMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;

/**
 * floe's own catalog as the rebuild sees it: pointers read from the catalog's in-memory mirror,
 * floe's records in the catalog file's durable sections, and a rebuilt table installed by a swap of
 * a scratch table into the live name, in one transaction with its reclaim job.
 */
public final class MapDbRebuildCatalog implements RebuildCatalog {
    private final MapDbCatalog catalog;
    private final FloeState state;

    public MapDbRebuildCatalog(MapDbCatalog catalog) {
        this.catalog = catalog;
        this.state = FloeState.of(catalog::durableEntries, catalog::putDurable, catalog::removeDurable);
    }

    /** The catalog itself, for the swap. */
    public MapDbCatalog catalog() {
        return catalog;
    }

    @Override
    public String name() {
        return catalog.name();
    }

    @Override
    public String key() {
        return ""; // the embedded catalog: a table is its name
    }

    @Override
    public FileIO io(TableIdentifier table) {
        return catalog.io();
    }

    @Override
    public Table loadTableUncached(TableIdentifier table) {
        return catalog.loadTableUncached(table);
    }

    @Override
    public String currentLocation(TableIdentifier table, TableOperations liveOps) {
        return catalog.metadataLocation(table);
    }

    @Override
    public FloeState state() {
        return state;
    }

    @Override
    public NavigableMap<Long, String> commitLog(TableIdentifier table) {
        return catalog.commitLog(table);
    }

    @Override
    public int forgetCommits(TableIdentifier table, Collection<Long> sequences) {
        return catalog.forgetCommits(table, sequences);
    }

    @Override
    public boolean installsBySwap() {
        return true;
    }

    @Override
    public String toString() {
        return catalog.toString();
    }
}
