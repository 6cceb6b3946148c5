package dev.floe.runtime.upkeep;

import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildCatalog;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The metadata files a swap retires: every one the live table's commit log and metadata log
 * name, up to {@code current}. The reclaim job starts from these; the CLI's dry run counts them.
 */
public final class RetiredMetadata {
    private RetiredMetadata() {}

    public static List<String> of(RebuildCatalog catalog, TableIdentifier identifier, TableMetadata current) {
        Set<String> retired = new LinkedHashSet<>(catalog.commitLog(identifier).values());
        current.previousFiles().forEach(entry -> retired.add(entry.file()));
        retired.add(current.metadataFileLocation());
        return new ArrayList<>(retired);
    }

    /** {@link #of(RebuildCatalog, TableIdentifier, TableMetadata)} for floe's own catalog. */
    public static List<String> of(
            dev.floe.catalog.MapDbCatalog catalog, TableIdentifier identifier, TableMetadata current) {
        return of(new MapDbRebuildCatalog(catalog), identifier, current);
    }
}
