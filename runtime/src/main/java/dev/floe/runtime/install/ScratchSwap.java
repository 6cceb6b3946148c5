package dev.floe.runtime.install;

import dev.floe.catalog.CatalogFileException;
import dev.floe.catalog.DurableChange;
import dev.floe.runtime.CrashPoint;
import dev.floe.runtime.RebuildException;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.rows.RebuiltTableProperties;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildJournal;
import dev.floe.runtime.seam.ReclaimJob;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The install of floe's own catalog: the rebuild writes into a {@link ScratchTable} that keeps the
 * live table's UUID, and one catalog transaction swaps it into the live name, compares-and-swaps on
 * the location read under the gate, records the reclaim job and clears the journal.
 */
final class ScratchSwap extends Installation {
    private final MapDbRebuildCatalog mapDb;

    ScratchSwap(
            MapDbRebuildCatalog catalog,
            TableIdentifier identifier,
            TableOperations liveOps,
            TableMetadata base,
            RebuildSettings settings,
            RebuildJournal journal) {
        super(
                catalog,
                identifier,
                liveOps,
                settings,
                journal,
                ScratchTable.create(
                        catalog.catalog(),
                        base,
                        liveOps,
                        RebuiltTableProperties.of(settings, base.properties()),
                        journal));
        this.mapDb = catalog;
    }

    /**
     * Step 5. With no history kept, the rebuilt snapshot is committed to the scratch table. With
     * history kept, the rebuilt version is staged over the live one ({@link RebuiltVersion}), and the
     * scratch table is pointed at a metadata file of it (its metadata log names the live table's
     * files, which the trim deletes once the log forgets them, as after a host commit). A scratch table whose partition spec id is
     * not the live table's (the live spec evolved) keeps no history: the pre-written manifests carry
     * the scratch's spec id.
     */
    @Override
    public void commit(RebuiltFiles files, PrewrittenManifest prewritten, TableMetadata current, long pinned) {
        HistoryWindow window = HistoryWindow.of(settings, current.properties());
        if (!window.keepsAny() || target().spec().specId() != current.defaultSpecId()) {
            RebuiltSnapshotCommit.commit(
                    target(), files, prewritten, current, pinned, settings.writerMarkers(), Set.of(), journal);
            historyKept = 0;
            return;
        }
        TableMetadata rebuilt = RebuiltVersion.stage(
                liveOps,
                current,
                RebuiltTableProperties.of(settings, current.properties()),
                files,
                prewritten,
                pinned,
                window,
                settings.writerMarkers(),
                journal);
        historyKept = kept(rebuilt, current);
        String location = liveOps.metadataFileLocation("00001-floe-rebuilt-" + UUID.randomUUID() + ".metadata.json");
        journal.fileStarted(location);
        RebuiltVersion.write(rebuilt, mapDb.catalog().io().newOutputFile(location));
        String empty = mapDb.catalog().metadataLocation(journal.scratch());
        mapDb.catalog().dropTable(journal.scratch(), false);
        mapDb.catalog().registerTable(journal.scratch(), location);
        mapDb.catalog().io().deleteFile(empty);
    }

    @Override
    public ReclaimJob install(TableMetadata current, List<String> retiredMetadata, Instant due) {
        ReclaimJob job = job(mapDb.catalog().metadataLocation(journal.scratch()), retiredMetadata, due);
        try {
            mapDb.catalog()
                    .swapTable(
                            identifier,
                            journal.scratch(),
                            current.metadataFileLocation(),
                            List.of(
                                    DurableChange.put(ReclaimJob.SECTION, job.id(), job.encode()),
                                    journal.clearOnSwap()),
                            () -> CrashPoint.reach("catalog.swap-uncommitted"),
                            historyKept > 0);
        } catch (org.apache.iceberg.exceptions.CommitFailedException e) {
            // a commit slipped past the gate (another writer of this file): it is kept, and this
            // attempt starts again from it
            throw new Refused("the swap was refused: " + e.getMessage(), false);
        } catch (CatalogFileException e) {
            // the catalog file failed mid-swap: whether the swap landed is unknown, so nothing is
            // deleted now; the next start's recovery finds the journal exactly when it did not land
            mayBeLive = true;
            throw new RebuildException(
                    "Rebuild of " + identifier + " could not tell whether its swap landed (" + e.getMessage()
                            + "); recovery settles it when the catalog is next opened",
                    e);
        }
        mayBeLive = true;
        return job;
    }
}
