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
import java.util.Map;
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
    public boolean keepsHistory(TableMetadata current) {
        return super.keepsHistory(current) && target().spec().specId() == current.defaultSpecId();
    }

    @Override
    public void commit(RebuiltFiles files, PrewrittenManifest prewritten, TableMetadata current, long pinned) {
        HistoryWindow window = HistoryWindow.of(settings, current.properties());
        if (!keepsHistory(current)) {
            RebuiltSnapshotCommit.commit(
                    target(),
                    files,
                    prewritten,
                    current,
                    pinned,
                    settings.writerMarkers(),
                    Set.of(),
                    Map.of(),
                    journal);
            historyKept = 0;
            staged = null;
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
                rewrites,
                settings.writerMarkers(),
                journal);
        historyKept = kept(rebuilt, current);
        staged = rebuilt;
        // numbered on from the live version, as a commit's would be: the host's next commit numbers on
        // from it, and a metadata file's number keeps telling how recent it is
        String location = liveOps.metadataFileLocation(String.format(
                java.util.Locale.ROOT,
                "%05d-floe-rebuilt-%s.metadata.json",
                versionOf(current.metadataFileLocation()) + 1,
                UUID.randomUUID()));
        journal.fileStarted(location);
        RebuiltVersion.write(rebuilt, mapDb.catalog().io().newOutputFile(location));
        String empty = mapDb.catalog().metadataLocation(journal.scratch());
        mapDb.catalog().dropTable(journal.scratch(), false);
        mapDb.catalog().registerTable(journal.scratch(), location);
        mapDb.catalog().io().deleteFile(empty);
    }

    /** The number a metadata file's name starts with ({@code 00012-<uuid>.metadata.json}), 0 if none. */
    static int versionOf(String location) {
        String name = location == null ? "" : location.substring(location.lastIndexOf('/') + 1);
        int digits = 0;
        while (digits < name.length() && Character.isDigit(name.charAt(digits))) {
            digits++;
        }
        try {
            return digits == 0 ? 0 : Integer.parseInt(name.substring(0, digits));
        } catch (NumberFormatException e) {
            return 0;
        }
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
