package dev.floe.catalog;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.NavigableMap;

/**
 * floe's durable records for tables that live in catalogs other than its own (rebuild journals,
 * reclaim jobs): the durable sections of a catalog file without tables, with the same guarantees
 * as the catalog's (one process holds it; every write is durable before it returns and survives a
 * kill at any instant; a damaged file is refused, never overwritten).
 */
public final class FloeStateFile implements Closeable {
    private final CatalogStore store;

    private FloeStateFile(CatalogStore store) {
        this.store = store;
    }

    /** Opens (creating if absent) the state file at {@code file}. */
    public static FloeStateFile open(Path file) {
        return new FloeStateFile(CatalogStore.acquire(file));
    }

    public Path file() {
        return store.file();
    }

    /** The entries of one section, key to value. */
    public NavigableMap<String, String> entries(String section) {
        return store.section(section);
    }

    /** The names of the sections that hold at least one entry. */
    public java.util.SortedSet<String> sections() {
        return store.sectionNames();
    }

    /** Writes one entry, durable before this returns. */
    public void put(String section, String key, String value) {
        DurableSections.put(store, section, key, value);
    }

    /** Removes one entry; true if it was there. */
    public boolean remove(String section, String key) {
        return DurableSections.remove(store, section, key);
    }

    @Override
    public void close() {
        store.release();
    }
}
