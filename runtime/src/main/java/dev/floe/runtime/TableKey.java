package dev.floe.runtime;

import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A table as the gate and the handle registry know it: the catalog it lives in and its name there.
 * Every instance of one catalog (the host may open many) gives its tables the same key, so they
 * share one gate. floe's own MapDbCatalog tables have the empty catalog key: a name is one table in
 * the embedded catalog, as before any other catalog was guarded.
 *
 * @param catalog {@link RebuildCatalog#key()} of the table's catalog
 */
public record TableKey(String catalog, TableIdentifier table) {
    /** A table of floe's embedded catalog. */
    public static TableKey embedded(TableIdentifier table) {
        return new TableKey("", table);
    }

    @Override
    public String toString() {
        return catalog.isEmpty() ? table.toString() : table + " (catalog " + catalog + ")";
    }
}
