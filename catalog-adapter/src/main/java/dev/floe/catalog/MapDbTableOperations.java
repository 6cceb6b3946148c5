package dev.floe.catalog;

import java.util.Objects;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;

/**
 * Table operations over the catalog file's pointer, shaped like Iceberg's {@code
 * JdbcTableOperations}: {@link #doRefresh} reads the pointer, {@link #doCommit} writes the new
 * metadata file and then compares-and-swaps the pointer in one transaction. The refresh after its
 * own commit takes the metadata it committed instead of reading back the file it just wrote.
 */
public class MapDbTableOperations extends BaseMetastoreTableOperations {
    private final MapDbCatalog catalog;
    private final CatalogStore store;
    private final FileIO io;
    private final TableIdentifier identifier;
    private final String tableKey;
    /** What this instance's last commit wrote, and where: its refresh takes it as it is. */
    private TableMetadata committed;

    private String committedLocation;

    MapDbTableOperations(MapDbCatalog catalog, CatalogStore store, FileIO io, TableIdentifier identifier) {
        this.catalog = catalog;
        this.store = store;
        this.io = io;
        this.identifier = identifier;
        this.tableKey = CatalogKeys.table(identifier);
    }

    /** The catalog these operations commit through. */
    public MapDbCatalog catalog() {
        return catalog;
    }

    /** The table these operations belong to. */
    public TableIdentifier identifier() {
        return identifier;
    }

    /**
     * The table's metadata location as the catalog file holds it now, read from memory: also after
     * the catalog instance these operations came from was closed, while the file is open.
     */
    public String pointer() {
        return store.snapshot().pointers.get(tableKey);
    }

    @Override
    protected void doRefresh() {
        String location = store.snapshot().pointers.get(tableKey);
        if (location == null && currentMetadataLocation() != null) {
            throw new NoSuchTableException(
                    "Table %s is no longer in catalog %s: it was dropped or renamed", identifier, catalog.name());
        }
        TableMetadata mine = committed;
        boolean own = mine != null && location != null && location.equals(committedLocation);
        committed = null;
        committedLocation = null;
        if (own) {
            // the file this instance just wrote holds exactly what it committed: reading and parsing
            // it again (megabytes for a table that keeps a long history) would cost every commit
            refreshFromMetadataLocation(
                    location,
                    null,
                    20,
                    at -> TableMetadata.buildFrom(mine)
                            .discardChanges()
                            .withMetadataLocation(at)
                            .build());
        } else {
            refreshFromMetadataLocation(location);
        }
    }

    @Override
    protected void doCommit(TableMetadata base, TableMetadata metadata) {
        boolean newTable = base == null;
        String newLocation = writeNewMetadataIfRequired(newTable, metadata);
        String baseLocation = newTable ? null : base.metadataFileLocation();
        try {
            store.write("commit " + identifier, tx -> {
                String stored = tx.pointer(tableKey);
                if (newTable && stored != null) {
                    throw new AlreadyExistsException("Table already exists: %s", identifier);
                }
                if (!newTable && stored == null) {
                    throw new NoSuchTableException(
                            "Cannot commit to %s: it was dropped from catalog %s", identifier, catalog.name());
                }
                if (!Objects.equals(stored, baseLocation)) {
                    throw new CommitFailedException(
                            "Cannot commit %s: its metadata moved from %s to %s since this commit began",
                            identifier, baseLocation, stored);
                }
                tx.putPointer(tableKey, newLocation);
                tx.appendLog(tableKey, newLocation);
                return null;
            });
        } catch (CatalogFileException e) {
            // MapDB failed mid-commit; whether the pointer moved cannot be told from here.
            throw new CommitStateUnknownException(e);
        } catch (CommitFailedException | AlreadyExistsException | NoSuchTableException e) {
            // the pointer certainly did not move: the metadata file just written is garbage
            if (!newLocation.equals(metadata.metadataFileLocation())) {
                try {
                    io.deleteFile(newLocation);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed); // the commit's own failure is what the caller retries on
                }
            }
            throw e;
        }
        committed = metadata;
        committedLocation = newLocation;
        catalog.committed(identifier, this);
    }

    @Override
    public FileIO io() {
        return io;
    }

    @Override
    protected String tableName() {
        return MapDbCatalog.fullName(catalog.name(), identifier);
    }
}
