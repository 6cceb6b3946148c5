package dev.floe.catalog;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The catalog's bounded cache of loaded table handles, least recently used first out.
 *
 * <p>Each cached handle pins its parsed {@code TableMetadata}, which grows with the table's snapshot
 * count; an unbounded cache under continuous ingest pins gigabytes. A cached handle is served only
 * while it still points at the catalog's current metadata location, so the cache never hands out a
 * stale table.
 */
final class HandleCache {
    private final Cache<TableIdentifier, Table> handles;

    HandleCache(long maxHandles) {
        this.handles = Caffeine.newBuilder()
                .maximumSize(maxHandles)
                .executor(Runnable::run)
                .build();
    }

    /** The cached handle for {@code identifier}, if it is at {@code currentLocation}. */
    Table get(TableIdentifier identifier, String currentLocation) {
        Table table = handles.getIfPresent(identifier);
        if (table == null || currentLocation == null) {
            return null;
        }
        TableOperations ops = ((HasTableOperations) table).operations();
        if (ops instanceof MapDbTableOperations
                && currentLocation.equals(((MapDbTableOperations) ops).currentMetadataLocation())) {
            return table;
        }
        handles.invalidate(identifier);
        return null;
    }

    void put(TableIdentifier identifier, Table table) {
        handles.put(identifier, table);
    }

    /** Forgets the handle unless it belongs to {@code committer}, which is then current already. */
    void committed(TableIdentifier identifier, TableOperations committer) {
        Table table = handles.getIfPresent(identifier);
        if (table != null && ((HasTableOperations) table).operations() != committer) {
            handles.invalidate(identifier);
        }
    }

    void invalidate(TableIdentifier identifier) {
        handles.invalidate(identifier);
    }

    void invalidateAll() {
        handles.invalidateAll();
    }

    long size() {
        handles.cleanUp();
        return handles.estimatedSize();
    }
}
