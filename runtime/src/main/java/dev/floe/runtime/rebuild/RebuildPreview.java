package dev.floe.runtime.rebuild;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.install.HistoryWindow;
import dev.floe.runtime.rows.RebuiltTableProperties;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;

/**
 * What a rebuild of a table would keep and rewrite now, as its plan says ({@link RebuildPlanner},
 * without a prune), and how many snapshots its history window would keep below the rebuilt one
 * ({@link HistoryWindow}): what the operator CLI's dry run shows.
 */
public record RebuildPreview(
        long keptFiles,
        long keptBytes,
        long rewrittenFiles,
        long rewrittenBytes,
        long rewrittenRows,
        boolean full,
        int keptSnapshots) {

    /**
     * The metadata files of {@code metadata} (its log and itself) that the rebuilt version, kept on
     * top of the history, still lists in its metadata log, so a rebuild does not retire them: the
     * newest {@code write.metadata.previous-versions-max} of the rebuilt table. None when the rebuild
     * keeps no history.
     */
    public static List<String> metadataStillListed(
            TableMetadata metadata, RebuildSettings settings, int keptSnapshots) {
        List<String> log = new ArrayList<>();
        if (keptSnapshots == 0) {
            return log;
        }
        metadata.previousFiles().forEach(entry -> log.add(entry.file()));
        log.add(metadata.metadataFileLocation());
        String max = RebuiltTableProperties.of(settings, metadata.properties())
                .getOrDefault(
                        TableProperties.METADATA_PREVIOUS_VERSIONS_MAX,
                        metadata.properties()
                                .getOrDefault(
                                        TableProperties.METADATA_PREVIOUS_VERSIONS_MAX,
                                        Integer.toString(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX_DEFAULT)));
        int keep = Math.max(1, Integer.parseInt(max.trim()));
        return log.subList(Math.max(0, log.size() - keep), log.size());
    }

    /** The plan of a rebuild of {@code table} at {@code metadata}, whole when {@code full}. */
    public static RebuildPreview of(Table table, TableMetadata metadata, RebuildSettings settings, boolean full) {
        RebuildPlan plan = RebuildPlanner.plan(table, metadata, settings, full, Prune.NONE);
        long rows = plan.groups().stream()
                .flatMap(group -> group.tasks().stream())
                .mapToLong(task -> task.file().recordCount())
                .sum();
        int history = HistoryWindow.of(settings, metadata.properties())
                .kept(metadata, System.currentTimeMillis())
                .size();
        return new RebuildPreview(
                plan.kept().size(),
                plan.keptBytes(),
                plan.rewrittenFiles(),
                plan.rewrittenBytes(),
                rows,
                plan.full(),
                history);
    }
}
