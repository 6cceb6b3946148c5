package dev.floe.runtime.rest;

import java.io.Closeable;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * The catalog the REST endpoint serves. Namespaces and writes go to Iceberg's {@code
 * CatalogHandlers} on {@link #catalog()} and {@link #namespaces()}; reads of a table go through
 * {@link #currentMetadata} and {@link #tableExists}, which an implementation answers without
 * waiting on any writer, and {@link #hides} names tables that are never served (floe's scratch
 * tables).
 */
public interface ServedCatalog extends Closeable {
    /** The catalog Iceberg's handlers run against. */
    Catalog catalog();

    /** Its namespaces. */
    SupportsNamespaces namespaces();

    /** Whether {@code table} is never served: not listed, not found, not created over REST. */
    boolean hides(TableIdentifier table);

    /**
     * The table's current metadata, as the catalog points at it now.
     *
     * @throws NoSuchTableException when there is no such table
     */
    TableMetadata currentMetadata(TableIdentifier table);

    /** Whether the table exists now. */
    boolean tableExists(TableIdentifier table);
}
