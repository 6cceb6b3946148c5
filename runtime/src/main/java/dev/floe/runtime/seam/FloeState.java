package dev.floe.runtime.seam;

import java.util.NavigableMap;

/**
 * floe's durable records (rebuild journals, reclaim jobs): small key-value entries in named
 * sections, each write durable before it returns. For tables in a {@code MapDbCatalog} they live in
 * the catalog file itself, next to the pointers, so a swap records its reclaim job in its own
 * transaction; for tables of any other catalog, in a state file of floe's own.
 */
public interface FloeState {
    /** The entries of {@code section}, key to value. */
    NavigableMap<String, String> entries(String section);

    void put(String section, String key, String value);

    /** True if the entry was there. */
    boolean remove(String section, String key);

    /**
     * These records as one catalog's: its sections are this one's named {@code scope/section}, so
     * the catalogs that share one state file never see each other's journals or reclaim jobs.
     */
    default FloeState scoped(String scope) {
        FloeState all = this;
        return of(
                section -> all.entries(scope + "/" + section),
                (section, key, value) -> all.put(scope + "/" + section, key, value),
                (section, key) -> all.remove(scope + "/" + section, key));
    }

    /** floe's records in a state file of its own, for tables of other catalogs. */
    static FloeState of(dev.floe.catalog.FloeStateFile file) {
        return of(file::entries, file::put, file::remove);
    }

    /** The records behind three functions: read a section, write an entry, remove one. */
    static FloeState of(
            java.util.function.Function<String, NavigableMap<String, String>> entries,
            Put put,
            java.util.function.BiPredicate<String, String> remove) {
        return new FloeState() {
            @Override
            public NavigableMap<String, String> entries(String section) {
                return entries.apply(section);
            }

            @Override
            public void put(String section, String key, String value) {
                put.put(section, key, value);
            }

            @Override
            public boolean remove(String section, String key) {
                return remove.test(section, key);
            }
        };
    }

    /** Writes one entry of a section. */
    @FunctionalInterface
    interface Put {
        void put(String section, String key, String value);
    }
}
