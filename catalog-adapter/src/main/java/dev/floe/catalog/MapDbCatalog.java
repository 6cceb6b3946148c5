package dev.floe.catalog;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.BaseMetastoreCatalog;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.hadoop.Configurable;
import org.apache.iceberg.io.FileIO;

/**
 * An Iceberg catalog whose namespaces, table pointers and per-table commit logs live in one MapDB
 * file, with an atomic {@link #swapTable} that floe's compaction ends in.
 *
 * <p>Load it the standard way, {@code CatalogUtil.loadCatalog("dev.floe.catalog.MapDbCatalog",
 * name, properties, hadoopConf)} or {@code catalog-impl=dev.floe.catalog.MapDbCatalog}. Properties:
 *
 * <ul>
 *   <li>{@code warehouse} (required): root location of new tables;
 *   <li>{@code uri}: the MapDB file, default {@code <warehouse>/floe-catalog.db};
 *   <li>{@code cache.max-handles}: how many loaded table handles are cached, default 512;
 *   <li>Iceberg's {@code table-default.*}, {@code table-override.*} and {@code io-impl} (default
 *       {@code HadoopFileIO}; without a Hadoop configuration from the host, local files are written
 *       without {@code .crc} side files).
 * </ul>
 *
 * <p>Every mutation is one MapDB transaction, durable before the call returns. Only one process can
 * open a catalog file at a time; catalogs in one JVM that name the same file share it.
 */
public class MapDbCatalog extends BaseMetastoreCatalog implements SupportsNamespaces, Configurable<Object> {
    public static final String URI = CatalogProperties.URI;
    public static final String CACHE_MAX_HANDLES = "cache.max-handles";
    public static final int CACHE_MAX_HANDLES_DEFAULT = 512;
    public static final String DEFAULT_FILE_NAME = "floe-catalog.db";

    static final String HADOOP_FILE_IO = "org.apache.iceberg.hadoop.HadoopFileIO";

    private String catalogName = "mapdb";
    private Map<String, String> catalogProperties = Map.of();
    private String warehouse;
    private Object hadoopConf;
    private FileIO io;
    private Path file;
    private CatalogStore store;
    private HandleCache handles;

    /** For {@code CatalogUtil.loadCatalog}: call {@link #initialize} next. */
    public MapDbCatalog() {}

    @Override
    public void setConf(Object conf) {
        this.hadoopConf = conf;
    }

    @Override
    public void initialize(String name, Map<String, String> properties) {
        if (store != null) {
            throw new IllegalStateException("MapDbCatalog " + catalogName + " is already initialized");
        }
        this.catalogName = name != null ? name : "mapdb";
        this.catalogProperties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        String root = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
        if (root == null || root.isBlank()) {
            throw new IllegalArgumentException("MapDbCatalog "
                    + catalogName
                    + " needs property 'warehouse': the root location of its tables, e.g."
                    + " warehouse=/var/lib/ingest/warehouse");
        }
        this.warehouse = root.replaceAll("/+$", "");
        int maxHandles = CatalogLocations.maxHandles(properties.get(CACHE_MAX_HANDLES));
        Path file = CatalogLocations.catalogFile(properties.get(URI), warehouse);

        // the FileIO first: a bad io-impl must not leave a new catalog file behind
        FileIO fileIO = loadFileIO();
        CatalogStore opened;
        try {
            opened = CatalogStore.acquire(file);
        } catch (RuntimeException e) {
            fileIO.close();
            throw e;
        }
        open(file, opened, fileIO, maxHandles);
    }

    private FileIO loadFileIO() {
        String ioImpl = catalogProperties.getOrDefault(CatalogProperties.FILE_IO_IMPL, HADOOP_FILE_IO);
        Object conf = hadoopConf != null
                ? hadoopConf
                : CatalogLocations.LocalHadoopConf.create(HADOOP_FILE_IO.equals(ioImpl));
        return CatalogUtil.loadFileIO(ioImpl, catalogProperties, conf);
    }

    private void open(Path file, CatalogStore opened, FileIO fileIO, int maxHandles) {
        this.io = fileIO;
        this.file = file;
        this.store = opened;
        this.handles = new HandleCache(maxHandles);
    }

    /**
     * Another instance of this catalog (same name, properties and Hadoop configuration) on the same
     * file, sharing it for as long as any instance in this JVM has it open; null when none has, even
     * if this one is closed. For work that must not depend on when the host closes its own
     * instances (floe's background thread): the caller closes it when done, which closes the file
     * only if every other instance was closed meanwhile.
     */
    public MapDbCatalog openAnother() {
        Path shared = file;
        if (shared == null) {
            return null; // never initialized
        }
        CatalogStore opened = CatalogStore.acquireIfOpen(shared);
        if (opened == null) {
            return null;
        }
        MapDbCatalog other = new MapDbCatalog();
        other.hadoopConf = hadoopConf;
        other.catalogName = catalogName;
        other.catalogProperties = catalogProperties;
        other.warehouse = warehouse;
        FileIO fileIO;
        try {
            fileIO = other.loadFileIO();
        } catch (RuntimeException e) {
            opened.release();
            throw e;
        }
        other.open(shared, opened, fileIO, 0); // floe's work loads its tables uncached
        return other;
    }

    /** Whether this instance is open: initialized and not yet closed. */
    public boolean isOpen() {
        return store != null;
    }

    @Override
    public String name() {
        return catalogName;
    }

    @Override
    protected Map<String, String> properties() {
        return catalogProperties;
    }

    /** The MapDB file this catalog keeps its pointers in (also once closed); null before initialize. */
    public Path catalogFile() {
        return file;
    }

    /** The catalog's file IO, the one its tables use. */
    public FileIO io() {
        return io;
    }

    @Override
    protected TableOperations newTableOps(TableIdentifier identifier) {
        return new MapDbTableOperations(this, store(), io, identifier);
    }

    @Override
    protected String defaultWarehouseLocation(TableIdentifier identifier) {
        return CatalogLocations.tableLocation(
                warehouse,
                store().snapshot().namespaces.get(CatalogKeys.namespace(identifier.namespace())),
                identifier);
    }

    @Override
    public Table loadTable(TableIdentifier identifier) {
        String location = store().snapshot().pointers.get(CatalogKeys.table(identifier));
        Table cached = handles.get(identifier, location);
        if (cached != null) {
            return cached;
        }
        Table table = super.loadTable(identifier);
        if (table instanceof BaseTable && location != null) {
            handles.put(identifier, table);
        }
        return table;
    }

    /**
     * Loads a new handle of {@code identifier}, bypassing the handle cache: for a caller that must
     * not share (and refresh) a handle the host may be using.
     */
    public Table loadTableUncached(TableIdentifier identifier) {
        return super.loadTable(identifier);
    }

    /**
     * Loads every table of {@code namespace} that still exists. A table listed a moment ago and gone
     * by the time it is loaded (a swapped-away scratch table, a concurrent drop) is skipped, never an
     * error.
     */
    public List<Table> loadTables(Namespace namespace) {
        List<Table> tables = new ArrayList<>();
        for (TableIdentifier identifier : listTables(namespace)) {
            try {
                tables.add(loadTable(identifier));
            } catch (NoSuchTableException | NotFoundException vanished) {
                // dropped or swapped away between the listing and the load
            }
        }
        return tables;
    }

    /** The metadata location {@code identifier} points at now, or null if there is no such table. */
    public String metadataLocation(TableIdentifier identifier) {
        return store().snapshot().pointers.get(CatalogKeys.table(identifier));
    }

    /** The commit log of a table: sequence number to metadata location, oldest first. */
    public NavigableMap<Long, String> commitLog(TableIdentifier identifier) {
        return store().commitLog(CatalogKeys.table(identifier));
    }

    /**
     * Removes entries from a table's commit log (their metadata files were deleted), in one
     * transaction; returns how many were there.
     */
    public int forgetCommits(TableIdentifier identifier, Collection<Long> sequences) {
        return PointerMoves.forget(store(), identifier, sequences);
    }

    @Override
    public List<TableIdentifier> listTables(Namespace namespace) {
        CatalogStore.Snapshot state = store().snapshot();
        CatalogNamespaces.requireExists(state, namespace);
        String prefix = CatalogKeys.tablesOf(namespace);
        return state.pointers.subMap(prefix, true, prefix + CatalogKeys.END, false).keySet().stream()
                .map(CatalogKeys::table)
                .collect(Collectors.toList());
    }

    @Override
    public boolean dropTable(TableIdentifier identifier, boolean purge) {
        TableOperations ops = newTableOps(identifier);
        TableMetadata lastMetadata = null;
        if (purge) {
            try {
                lastMetadata = ops.current();
            } catch (NotFoundException e) {
                // its metadata file is already gone: drop the pointer, nothing left to purge
            }
        }
        String key = CatalogKeys.table(identifier);
        boolean dropped = store().write("drop table " + identifier, tx -> {
            tx.pruneLog(key);
            return tx.removePointer(key) != null;
        });
        handles.invalidate(identifier);
        if (dropped && lastMetadata != null) {
            CatalogUtil.dropTableData(ops.io(), lastMetadata);
        }
        return dropped;
    }

    @Override
    public void renameTable(TableIdentifier from, TableIdentifier to) {
        if (from.equals(to)) {
            return;
        }
        PointerMoves.rename(store(), from, to);
        handles.invalidate(from);
        handles.invalidate(to);
    }

    /** {@link #swapTable(TableIdentifier, TableIdentifier, String)} without the location check. */
    public String swapTable(TableIdentifier live, TableIdentifier temp) {
        return swapTable(live, temp, null);
    }

    /**
     * Points {@code live} at {@code temp}'s metadata and removes {@code temp}, in one transaction:
     * there is no instant at which {@code live} resolves to nothing. Both commit logs are pruned and
     * {@code live}'s is re-seeded with its new location. Only pointers move: no file is moved or
     * deleted.
     *
     * @param expectedLiveLocation the metadata location the caller read for {@code live}; when not
     *     null and {@code live} has moved since, the swap changes nothing and throws {@link
     *     CommitFailedException}, so a commit that slipped in is never silently dropped
     * @return {@code live}'s metadata location before the swap, or null if it did not exist
     * @throws NoSuchTableException if {@code temp} does not exist
     */
    public String swapTable(TableIdentifier live, TableIdentifier temp, String expectedLiveLocation) {
        return swapTable(live, temp, expectedLiveLocation, List.of());
    }

    /**
     * {@link #swapTable(TableIdentifier, TableIdentifier, String)}, also applying {@code alsoRecord}
     * to the durable sections in the same transaction: they take effect if and only if the swap does.
     */
    public String swapTable(
            TableIdentifier live, TableIdentifier temp, String expectedLiveLocation, List<DurableChange> alsoRecord) {
        return swapTable(live, temp, expectedLiveLocation, alsoRecord, () -> {}, false);
    }

    /**
     * {@link #swapTable(TableIdentifier, TableIdentifier, String, List)}, running {@code
     * insideTransaction} inside the swap's transaction, last, before it commits: anything it throws
     * rolls the swap back (floe's crash tests halt there). With {@code keepLiveLog}, for a {@code
     * temp} whose metadata log goes on from {@code live}'s, {@code live}'s commit log is kept and
     * {@code temp}'s appended to it.
     */
    public String swapTable(
            TableIdentifier live,
            TableIdentifier temp,
            String expectedLiveLocation,
            List<DurableChange> alsoRecord,
            Runnable insideTransaction,
            boolean keepLiveLog) {
        if (live.equals(temp)) {
            throw new IllegalArgumentException("Cannot swap table " + live + " with itself");
        }
        String prior = PointerMoves.swap(
                store(), live, temp, expectedLiveLocation, alsoRecord, insideTransaction, keepLiveLog);
        handles.invalidate(live);
        handles.invalidate(temp);
        return prior;
    }

    // ---- durable sections: small key-value records other floe components keep in this file ----

    /** The entries of a durable section (for example floe's reclaim jobs), key to value. */
    public NavigableMap<String, String> durableEntries(String section) {
        return store().section(section);
    }

    /** Writes one entry of a durable section, committed before this returns. */
    public void putDurable(String section, String key, String value) {
        DurableSections.put(store(), section, key, value);
    }

    /** Removes one entry of a durable section; true if it was there. */
    public boolean removeDurable(String section, String key) {
        return DurableSections.remove(store(), section, key);
    }

    // ---- namespaces (CatalogNamespaces) ----

    @Override
    public void createNamespace(Namespace namespace, Map<String, String> metadata) {
        CatalogNamespaces.create(store(), namespace, metadata);
    }

    @Override
    public List<Namespace> listNamespaces() {
        return listNamespaces(Namespace.empty());
    }

    @Override
    public List<Namespace> listNamespaces(Namespace namespace) {
        return CatalogNamespaces.children(store(), namespace);
    }

    @Override
    public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
        return CatalogNamespaces.properties(store(), namespace);
    }

    @Override
    public boolean namespaceExists(Namespace namespace) {
        return CatalogNamespaces.exists(store().snapshot(), namespace);
    }

    @Override
    public boolean dropNamespace(Namespace namespace) throws NamespaceNotEmptyException {
        return CatalogNamespaces.drop(store(), namespace);
    }

    @Override
    public boolean setProperties(Namespace namespace, Map<String, String> properties) {
        return CatalogNamespaces.updateProperties(store(), namespace, current -> current.putAll(properties));
    }

    @Override
    public boolean removeProperties(Namespace namespace, Set<String> properties) {
        return CatalogNamespaces.updateProperties(
                store(), namespace, current -> current.keySet().removeAll(properties));
    }

    // ---- lifecycle and helpers ----

    /** How many loaded table handles the catalog caches right now. */
    public long cachedHandles() {
        return handles.size();
    }

    void committed(TableIdentifier identifier, TableOperations committer) {
        handles.committed(identifier, committer);
    }

    @Override
    public void close() throws java.io.IOException {
        CatalogStore opened = store;
        if (opened == null) {
            return;
        }
        store = null;
        handles.invalidateAll();
        try {
            super.close();
        } finally {
            try {
                io.close();
            } finally {
                opened.release();
            }
        }
    }

    @Override
    public String toString() {
        return "MapDbCatalog{name=" + catalogName + ", file=" + (store == null ? "closed" : store.file()) + "}";
    }

    static String fullName(String catalogName, TableIdentifier identifier) {
        return fullTableName(catalogName, identifier);
    }

    private CatalogStore store() {
        CatalogStore opened = store;
        if (opened == null) {
            throw new IllegalStateException(
                    "MapDbCatalog " + catalogName + " is not open: call initialize() first, and not after close()");
        }
        return opened;
    }
}
