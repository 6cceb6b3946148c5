package dev.floe.runtime.install;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.seam.ReachableFiles;
import dev.floe.runtime.seam.RebuildJournal;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;

/**
 * The table a rebuild writes into before it is swapped into the live name: {@code
 * <table>__c<nanos>} in the same namespace, with the live table's UUID, schema (same field ids),
 * partition spec, sort order, properties and location, and no snapshot.
 *
 * <p>Keeping the UUID is what lets a handle the host loaded before the swap refresh onto the
 * rebuilt table: Iceberg refuses a refresh whose table UUID changed.
 */
public final class ScratchTable {
    private static final Pattern NAME = Pattern.compile(".*__c\\d+$");

    private ScratchTable() {}

    public static TableIdentifier nameFor(TableIdentifier live) {
        return TableIdentifier.of(live.namespace(), live.name() + "__c" + System.nanoTime());
    }

    public static boolean isScratchName(TableIdentifier identifier) {
        return NAME.matcher(identifier.name()).matches();
    }

    /**
     * Creates the scratch table for {@code live}; {@code journal} is told the metadata file before it
     * is written.
     */
    public static Table create(
            MapDbCatalog catalog,
            TableMetadata live,
            org.apache.iceberg.TableOperations liveOps,
            Map<String, String> extraProperties,
            RebuildJournal journal) {
        Map<String, String> properties = new LinkedHashMap<>(live.properties());
        properties.putAll(extraProperties);
        TableMetadata metadata = TableMetadata.buildFromEmpty(live.formatVersion())
                .assignUUID(live.uuid())
                .setLocation(live.location())
                .setCurrentSchema(live.schema(), live.lastColumnId())
                .setDefaultPartitionSpec(live.spec())
                .setDefaultSortOrder(live.sortOrder())
                .setProperties(properties)
                .build();
        String location = liveOps.metadataFileLocation("00000-floe-scratch-" + UUID.randomUUID() + ".metadata.json");
        journal.fileStarted(location);
        TableMetadataParser.write(metadata, catalog.io().newOutputFile(location));
        return catalog.registerTable(journal.scratch(), location);
    }

    /**
     * Drops a scratch table that was never swapped in, and deletes the files it wrote: those in
     * {@code journal}, plus the metadata files, manifest lists and manifests of the scratch table
     * itself. Data files it references but did not write (appends carried over from the live table)
     * are the live table's and are left alone, and so is anything else the live table references.
     */
    static void discard(MapDbCatalog catalog, RebuildJournal journal) {
        TableIdentifier scratch = journal.scratch();
        Set<String> files = new LinkedHashSet<>(journal.files());
        try {
            Table table = catalog.loadTableUncached(scratch);
            TableMetadata metadata = ((HasTableOperations) table).operations().current();
            files.addAll(catalog.commitLog(scratch).values());
            for (Snapshot snapshot : metadata.snapshots()) {
                files.add(snapshot.manifestListLocation());
                for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                    files.add(manifest.path());
                }
            }
            catalog.dropTable(scratch, false);
        } catch (NoSuchTableException | NotFoundException e) {
            // never registered, or already dropped: the journal lists what it wrote
        }
        // a safety net: nothing the live table references is deleted, whatever path led here
        files.removeAll(liveFiles(catalog, journal.live()));
        for (String file : files) {
            try {
                catalog.io().deleteFile(file);
            } catch (NotFoundException e) {
                // never written
            }
        }
        journal.clear();
    }

    /** Every file the live table references now; none while it is gone. */
    private static Set<String> liveFiles(MapDbCatalog catalog, TableIdentifier live) {
        try {
            Table table = catalog.loadTableUncached(live);
            // not strict: a live manifest already gone must not keep floe from cleaning up its own files
            return new ReachableFiles(table.io(), false)
                    .add(((HasTableOperations) table).operations().current())
                    .files();
        } catch (NoSuchTableException e) {
            return Set.of();
        }
    }
}
