package dev.floe.catalog;

/** The writes of durable sections, one store transaction each: for the catalog and the state file alike. */
final class DurableSections {
    private DurableSections() {}

    static void put(CatalogStore store, String section, String key, String value) {
        store.write("record " + section + " entry " + key, tx -> {
            tx.putSection(section, key, value);
            return null;
        });
    }

    static boolean remove(CatalogStore store, String section, String key) {
        return store.write("remove " + section + " entry " + key, tx -> tx.removeSection(section, key));
    }
}
