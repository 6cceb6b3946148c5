package dev.floe.runtime.rest;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.install.ScratchTable;
import java.io.IOException;
import java.util.Objects;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;

/**
 * A {@link MapDbCatalog} as the endpoint serves it: floe's scratch tables ({@code <table>__c<digits>})
 * hidden, and a table's metadata read from the pointer the catalog keeps in memory. A rebuild swaps
 * that pointer in one transaction, so a read sees the table before the swap or after it, never no
 * table, and never waits for the rebuild (it takes no lock: the pointer is a read of the catalog's
 * published in-memory state, the metadata a read of the file it names).
 *
 * <p>The one race is with deletion: a metadata file a swap retired is deleted once {@code
 * floe.reclaim.grace} has passed, and one the host's own commits drop from the metadata log when the
 * table deletes old metadata, so a read that took a pointer just before may find its file gone. Then
 * the pointer has moved, and the read is made again from the new one.
 */
public final class MapDbServedCatalog implements ServedCatalog {
    /** Reads made again when the metadata file read was retired by a swap meanwhile. */
    static final int MOVED_RETRIES = 5;

    private final MapDbCatalog catalog;
    private final boolean ownsCatalog;

    private MapDbServedCatalog(MapDbCatalog catalog, boolean ownsCatalog) {
        this.catalog = catalog;
        this.ownsCatalog = ownsCatalog;
    }

    /** Serves {@code catalog}; the caller keeps it open while it is served and closes it after. */
    public static MapDbServedCatalog of(MapDbCatalog catalog) {
        return new MapDbServedCatalog(catalog, false);
    }

    /**
     * Serves an instance of its own on {@code host}'s file ({@link MapDbCatalog#openAnother}), closed
     * with this: the endpoint keeps serving whenever the host opens and closes its instances. Null
     * when {@code host}'s file is not open.
     */
    public static MapDbServedCatalog onFileOf(MapDbCatalog host) {
        MapDbCatalog own = host.openAnother();
        return own == null ? null : new MapDbServedCatalog(own, true);
    }

    @Override
    public Catalog catalog() {
        return catalog;
    }

    @Override
    public SupportsNamespaces namespaces() {
        return catalog;
    }

    /** The instance served (to tell its own calls from the host's). */
    public MapDbCatalog instance() {
        return catalog;
    }

    @Override
    public boolean hides(TableIdentifier table) {
        return ScratchTable.isScratchName(table);
    }

    @Override
    public TableMetadata currentMetadata(TableIdentifier table) {
        for (int attempt = 0; ; attempt++) {
            String pointer = pointer(table);
            try {
                return TableMetadataParser.read(catalog.io(), pointer);
            } catch (NotFoundException retired) {
                if (attempt >= MOVED_RETRIES || Objects.equals(pointer, catalog.metadataLocation(table))) {
                    throw retired;
                }
                // swapped meanwhile and the old file deleted: read the new one
            }
        }
    }

    @Override
    public boolean tableExists(TableIdentifier table) {
        return !hides(table) && catalog.metadataLocation(table) != null;
    }

    private String pointer(TableIdentifier table) {
        String pointer = hides(table) ? null : catalog.metadataLocation(table);
        if (pointer == null) {
            throw new NoSuchTableException("Table does not exist: %s", table);
        }
        return pointer;
    }

    @Override
    public void close() throws IOException {
        if (ownsCatalog) {
            catalog.close();
        }
    }

    @Override
    public String toString() {
        return "served " + catalog;
    }
}
