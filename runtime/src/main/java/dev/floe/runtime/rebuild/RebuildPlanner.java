package dev.floe.runtime.rebuild;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildException;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.install.RebuiltFiles;
import dev.floe.runtime.rows.DeleteFileKey;
import dev.floe.runtime.rows.RollingParquetWriter;
import dev.floe.runtime.rows.TaskRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.StructLikeMap;

/**
 * Step 3a of a rebuild: plans what it rewrites and what it keeps as it is ({@link RebuildPlan}).
 *
 * <p>Per partition of the table's current spec (files of two partitions never mix), a data file is
 * rewritten when:
 * <ul>
 *   <li>it was written under an earlier spec: its rows go into the current spec's partitions;
 *   <li>an equality delete applies to it, or position deletes (deletion vectors) cover at least
 *       {@link RebuildSettings#deleteRatio} of its rows: rewritten with them applied;
 *   <li>it is small and its tier is full ({@link SizeTiers});
 *   <li>a prune is configured and drops a row of it (every kept file is read through the prune, so
 *       the prune still sees every row);
 *   <li>the rebuild is full: asked for ({@code compact --full}), or every {@link
 *       RebuildSettings#fullEvery} rebuilds.
 * </ul>
 * Every other file is kept, with the position deletes that apply to it: they go into the rebuilt
 * snapshot with it, so all its files share one sequence number and each such delete applies to the
 * rows it applied to (a position delete names its file; the rewritten files have new names).
 */
final class RebuildPlanner {

    private RebuildPlanner() {}

    static RebuildPlan plan(Table live, TableMetadata base, RebuildSettings settings, boolean fullAsked, Prune prune) {
        return plan(live, base, settings, fullAsked, prune, java.util.Set.of());
    }

    /**
     * {@link #plan(Table, TableMetadata, RebuildSettings, boolean, Prune)}, the files of {@code apart}
     * (a major rebuild's, {@link Promotions}) set aside in {@link RebuildPlan#apart}: neither kept
     * nor rewritten, nor counted in their partition's tiers.
     */
    static RebuildPlan plan(
            Table live,
            TableMetadata base,
            RebuildSettings settings,
            boolean fullAsked,
            Prune prune,
            java.util.Set<String> apart) {
        int since = sinceFull(base);
        boolean full = fullAsked || (settings.fullEvery() > 0 && since + 1 >= settings.fullEvery());
        PartitionSpec spec = base.spec();
        long settled = SizeTiers.settledBytes(settings.targetFileBytes());
        StructLikeMap<List<FileScanTask>> rewrite = StructLikeMap.create(spec.partitionType());
        StructLikeMap<List<FileScanTask>> small = StructLikeMap.create(spec.partitionType());
        List<FileScanTask> earlierSpec = new ArrayList<>();
        List<FileScanTask> candidates = new ArrayList<>();
        List<FileScanTask> setApart = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = live.newScan()
                .useSnapshot(base.currentSnapshot().snapshotId())
                .includeColumnStats()
                .planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                if (apart.contains(file.location())) {
                    setApart.add(task);
                } else if (file.specId() != spec.specId()) {
                    earlierSpec.add(task);
                } else if (full || mustApplyDeletes(task, settings.deleteRatio(), base.formatVersion())) {
                    rewrite.computeIfAbsent(file.partition(), p -> new ArrayList<>())
                            .add(task);
                } else if (file.fileSizeInBytes() < settled) {
                    small.computeIfAbsent(file.partition(), p -> new ArrayList<>())
                            .add(task);
                } else {
                    candidates.add(task);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        small.forEach((partition, files) -> {
            List<FileScanTask> chosen =
                    SizeTiers.choose(files, task -> task.file().fileSizeInBytes(), settled, settings.fanIn());
            if (!chosen.isEmpty()) {
                rewrite.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(chosen);
            }
            java.util.Set<FileScanTask> packed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            packed.addAll(chosen);
            files.stream().filter(task -> !packed.contains(task)).forEach(candidates::add);
        });
        List<DataFile> kept = new ArrayList<>();
        Map<String, DeleteFile> deletes = new LinkedHashMap<>();
        for (FileScanTask task : candidates) {
            if (!prune.keepsEveryRow() && prunesARow(task, base, live, prune)) {
                rewrite.computeIfAbsent(task.file().partition(), p -> new ArrayList<>())
                        .add(task);
                continue;
            }
            kept.add(task.file());
            task.deletes().forEach(delete -> deletes.putIfAbsent(DeleteFileKey.of(delete), delete));
        }
        List<RebuildPlan.Group> groups = new ArrayList<>();
        rewrite.forEach((partition, files) -> groups.add(new RebuildPlan.Group(
                spec.isPartitioned() ? partition : null, false, List.copyOf(files), full ? "full" : "tiered")));
        if (!earlierSpec.isEmpty()) {
            // their rows go into the partitions of the current spec (one group, if unpartitioned)
            groups.add(new RebuildPlan.Group(null, spec.isPartitioned(), List.copyOf(earlierSpec), "earlier spec"));
        }
        for (RebuildPlan.Group group : groups) {
            for (FileScanTask task : group.tasks()) {
                if (!TaskRows.readable(task)) {
                    throw new RebuildException("Table " + live.name() + " has "
                            + task.file().format()
                            + " data file " + task.file().location() + " to rewrite; floe reads Parquet and Avro"
                            + " data files only, so it leaves the table as it is");
                }
            }
        }
        return new RebuildPlan(
                List.copyOf(kept),
                List.copyOf(deletes.values()),
                List.copyOf(groups),
                full,
                full ? 0 : since + 1,
                List.copyOf(setApart),
                List.of());
    }

    /**
     * Whether {@code task}'s deletes must be applied now: any equality delete, a position delete file
     * that is not a deletion vector in a table of format 3 or later (Iceberg adds no other there), or
     * enough deleted positions.
     */
    static boolean mustApplyDeletes(FileScanTask task, double ratio, int formatVersion) {
        long rows = Math.max(1, task.file().recordCount());
        long deleted = 0;
        for (DeleteFile delete : task.deletes()) {
            if (delete.content() == FileContent.EQUALITY_DELETES
                    || (formatVersion >= 3 && !ContentFileUtil.isDV(delete))) {
                return true;
            }
            // a delete file of several data files may hold fewer of this one's positions: counted
            // as if all were, so such a file is rewritten sooner, never later
            deleted +=
                    ContentFileUtil.isFileScoped(delete) ? delete.recordCount() : Math.min(delete.recordCount(), rows);
        }
        return deleted > 0 && (double) Math.min(deleted, rows) / rows >= ratio;
    }

    private static boolean prunesARow(FileScanTask task, TableMetadata base, Table live, Prune prune) {
        try (CloseableIterable<Record> rows = TaskRows.of(
                        live, base.currentSnapshot().snapshotId(), base.schema())
                .rows(task)) {
            for (Record row : rows) {
                if (RollingParquetWriter.drops(prune, row)) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Rebuilds since the last full one, as the newest rebuilt snapshot below the current one says. */
    static int sinceFull(TableMetadata metadata) {
        for (Snapshot s = metadata.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : metadata.snapshot(s.parentId())) {
            String since = s.summary().get(RebuiltFiles.SINCE_FULL);
            if (since != null) {
                try {
                    return Integer.parseInt(since);
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }
}
