package dev.floe.runtime.rebuild;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.install.HistoryWindow;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;

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
