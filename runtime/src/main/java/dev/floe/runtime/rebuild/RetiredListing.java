package dev.floe.runtime.rebuild;

import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.upkeep.MetadataHistoryTrim;
import dev.floe.runtime.upkeep.Reclaimer;
import java.util.List;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Step 8 of a rebuild, once it is live: expands its reclaim job into the list of the files it
 * retired (deleted after the grace window), then deletes the metadata files the live table's log had
 * already forgotten. It reads every manifest the old and the new versions reference (with history
 * kept, those of thousands of snapshots), so in the agent it runs apart ({@link Promotions#afterwards}).
 */
final class RetiredListing {
    private static final Logger LOG = LoggerFactory.getLogger(RetiredListing.class);

    private RetiredListing() {}

    /**
     * How many files the job lists; -1 if listing them failed (the next reclaim retries).
     *
     * @param retiredMetadata the metadata files the rebuild retired
     * @param over the live table's metadata the rebuild was installed over
     */
    static int list(
            RebuildCatalog catalog,
            TableIdentifier identifier,
            ReclaimJob job,
            List<String> retiredMetadata,
            TableMetadata over,
            RebuildSettings settings) {
        int retiredFiles;
        try {
            ReclaimJob expanded = new Reclaimer(catalog).expand(job);
            retiredFiles = expanded == null ? -1 : expanded.paths().size();
        } catch (RuntimeException e) {
            LOG.warn(
                    "floe: rebuild of {} is live; listing its retired files failed and will be retried by"
                            + " the next reclaim: {}",
                    identifier,
                    e.toString());
            retiredFiles = -1;
        }
        if (settings.metadataVersions() > 0 && retiredFiles >= 0) {
            // after the expansion, which reads them to find every file they reference (if it failed,
            // they stay for the next reclaim to read)
            MetadataHistoryTrim.deleteForgotten(catalog, identifier, retiredMetadata, over);
        }
        return retiredFiles;
    }
}
