package dev.floe.runtime.rebuild;

import dev.floe.runtime.rows.DeleteFileKey;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.StructLike;

/**
 * What one rebuild reads and what it keeps as it is ({@link RebuildPlanner}): the files it carries
 * into the rebuilt snapshot untouched (settled ones, and small ones whose tier is not full yet), with
 * the delete files that still apply to them, and the groups of files it rewrites, each into new files
 * of one partition.
 *
 * @param kept data files carried as they are (same path, same bytes)
 * @param deletes the delete files carried with them: every position delete or deletion vector that
 *     applies to a kept file (a file that any equality delete applies to is never kept)
 * @param groups the files to rewrite, deletes applied
 * @param full whether this rebuild rewrites every file (nothing settled)
 * @param rebuildsSinceFull how many rebuilds since the last full one, this one included (0 if full)
 * @param apart the files a major rebuild claims ({@link Promotions}), neither kept nor rewritten
 *     yet: {@link #keepingApart} or {@link #adoptingApart} says which
 * @param adopted files a major rebuild packed, replaced in this rebuild by what it wrote
 */
record RebuildPlan(
        List<DataFile> kept,
        List<DeleteFile> deletes,
        List<Group> groups,
        boolean full,
        int rebuildsSinceFull,
        List<FileScanTask> apart,
        List<FileScanTask> adopted) {

    RebuildPlan(List<DataFile> kept, List<DeleteFile> deletes, List<Group> groups, boolean full, int sinceFull) {
        this(kept, deletes, groups, full, sinceFull, List.of(), List.of());
    }

    /** This plan with the files set apart kept as they are (their major rebuild still runs). */
    RebuildPlan keepingApart() {
        return keeping(apart, groups, adopted);
    }

    /** This plan with the files set apart replaced by what their major rebuild wrote. */
    RebuildPlan adoptingApart() {
        return new RebuildPlan(kept, deletes, groups, full, rebuildsSinceFull, List.of(), List.copyOf(apart));
    }

    /** This plan with {@code major}, groups of it, kept as they are here: a major rebuild packs them. */
    RebuildPlan settingApart(List<Group> major) {
        List<Group> rest = new java.util.ArrayList<>(groups);
        rest.removeIf(group -> major.stream().anyMatch(m -> m == group));
        List<FileScanTask> tasks = new java.util.ArrayList<>();
        major.forEach(group -> tasks.addAll(group.tasks()));
        return keeping(tasks, rest, adopted);
    }

    private RebuildPlan keeping(List<FileScanTask> tasks, List<Group> rest, List<FileScanTask> adopting) {
        List<DataFile> keeping = new java.util.ArrayList<>(kept);
        java.util.Map<String, DeleteFile> keptDeletes = new java.util.LinkedHashMap<>();
        deletes.forEach(delete -> keptDeletes.put(DeleteFileKey.of(delete), delete));
        for (FileScanTask task : tasks) {
            keeping.add(task.file());
            task.deletes().forEach(delete -> keptDeletes.putIfAbsent(DeleteFileKey.of(delete), delete));
        }
        return new RebuildPlan(
                List.copyOf(keeping),
                List.copyOf(keptDeletes.values()),
                List.copyOf(rest),
                full,
                rebuildsSinceFull,
                List.of(),
                adopting);
    }

    /**
     * Files rewritten together into new files of one partition of the table's current spec: {@code
     * partition} (null for an unpartitioned spec), or, when {@code partition} is null and {@code
     * routed}, each row into the partition the current spec gives it (files of an earlier spec).
     */
    record Group(StructLike partition, boolean routed, List<FileScanTask> tasks, String why) {
        long bytes() {
            return tasks.stream()
                    .mapToLong(task -> task.file().fileSizeInBytes())
                    .sum();
        }
    }

    /** The delete files of the pinned snapshot this rebuild applies: those of rewritten files, but kept ones. */
    java.util.Set<String> appliedDeletes() {
        java.util.Set<String> applied = new java.util.HashSet<>();
        groups.forEach(group ->
                group.tasks().forEach(task -> task.deletes().forEach(delete -> applied.add(DeleteFileKey.of(delete)))));
        adopted.forEach(task -> task.deletes().forEach(delete -> applied.add(DeleteFileKey.of(delete))));
        deletes.forEach(delete -> applied.remove(DeleteFileKey.of(delete)));
        return applied;
    }

    long keptBytes() {
        return kept.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    }

    long keptRows() {
        return kept.stream().mapToLong(DataFile::recordCount).sum();
    }

    long rewrittenFiles() {
        return groups.stream().mapToLong(group -> group.tasks().size()).sum();
    }

    long rewrittenRows() {
        return groups.stream()
                .flatMap(group -> group.tasks().stream())
                .mapToLong(task -> task.file().recordCount())
                .sum();
    }

    long rewrittenBytes() {
        return groups.stream().mapToLong(Group::bytes).sum();
    }
}
