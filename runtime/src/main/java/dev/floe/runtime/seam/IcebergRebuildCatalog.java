package dev.floe.runtime.seam;

import java.util.Collection;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;

/**
 * Any other Iceberg catalog (JDBC, REST, Hive, Glue, Nessie, Hadoop) as the rebuild sees it: tables
 * loaded through the catalog, floe's records in a {@link FloeState} of floe's own, and a rebuilt
 * table committed in place through the live table's own operations ({@link RebuiltVersion}), so the
 * catalog's compare-and-swap decides.
 */
public final class IcebergRebuildCatalog implements RebuildCatalog {
    /** The least time between two reads of a table's pointer while its rows stream. */
    static final long POINTER_EVERY_NANOS = 250_000_000L;

    private final Catalog catalog;
    private final String key;
    private final FloeState state;
    /** Per table, the pointer read last and when. */
    private final Map<TableIdentifier, Read> lastRead = new ConcurrentHashMap<>();

    private record Read(long nanos, String location) {}

    /** With the catalog's name as its key, for use without the agent. */
    public IcebergRebuildCatalog(Catalog catalog, FloeState state) {
        this(catalog, catalog.name(), state);
    }

    /**
     * @param key what tells the catalog apart in this JVM ({@link SharedCatalog#key()})
     * @param state floe's records, for this catalog alone ({@link FloeState#scoped})
     */
    public IcebergRebuildCatalog(Catalog catalog, String key, FloeState state) {
        this.catalog = catalog;
        this.key = key;
        this.state = state;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public String name() {
        return catalog.name();
    }

    @Override
    public FileIO io(TableIdentifier table) {
        return ((HasTableOperations) catalog.loadTable(table)).operations().io();
    }

    @Override
    public Table loadTableUncached(TableIdentifier table) {
        return catalog.loadTable(table);
    }

    @Override
    public String currentLocation(TableIdentifier table, TableOperations liveOps) {
        long now = System.nanoTime();
        Read last = lastRead.get(table);
        if (last != null && now - last.nanos() < POINTER_EVERY_NANOS) {
            return last.location();
        }
        String location = liveOps.refresh().metadataFileLocation();
        lastRead.put(table, new Read(now, location));
        return location;
    }

    @Override
    public FloeState state() {
        return state;
    }

    @Override
    public NavigableMap<Long, String> commitLog(TableIdentifier table) {
        return new TreeMap<>(); // the table's metadata log is all the history such a catalog keeps
    }

    @Override
    public int forgetCommits(TableIdentifier table, Collection<Long> sequences) {
        return 0;
    }

    @Override
    public boolean installsBySwap() {
        return false;
    }

    @Override
    public String toString() {
        return "catalog " + catalog.name();
    }
}
