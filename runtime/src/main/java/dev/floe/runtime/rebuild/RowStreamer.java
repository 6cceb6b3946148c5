package dev.floe.runtime.rebuild;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.deltas.CompactionMap;
import dev.floe.runtime.rows.RollingParquetWriter;
import dev.floe.runtime.rows.RoutedRepack;
import dev.floe.runtime.rows.RowGroupCopy;
import dev.floe.runtime.rows.TaskRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Step 3b of a rebuild: writes the groups of files the plan rewrites ({@link RebuildPlan}), one
 * group (one partition) at a time, recording in the {@link CompactionMap} where each row went. In
 * each group the files whose row groups are already large and whose bytes are what the rebuild
 * would write are copied row group by row group ({@link RowGroupCopy}: a promotion of settled tier
 * outputs), and the rest are read, deletes applied, through the prune, into new Parquet files
 * ({@link RollingParquetWriter}).
 */
final class RowStreamer {
    /** What the stream wrote: every file, and of them what was copied as row groups. */
    record Streamed(RollingParquetWriter.Result written, long copiedFiles, long copiedBytes) {}

    /** Told of each set of files whose row groups were copied. */
    interface Copies {
        void copied(long files, long rows, long bytes);
    }

    private final Table live;
    private final TableMetadata base;
    private final Table target;
    private final RebuildSettings settings;
    private final Prune prune;
    private final CompactionMap map;
    private final StreamRaceWatch watch;
    private final Copies copies;
    private final Consumer<String> onFileStarted;

    RowStreamer(
            Table live,
            TableMetadata base,
            Table target,
            RebuildSettings settings,
            Prune prune,
            CompactionMap map,
            StreamRaceWatch watch,
            Copies copies,
            Consumer<String> onFileStarted) {
        this.live = live;
        this.base = base;
        this.target = target;
        this.settings = settings;
        this.prune = prune;
        this.map = map;
        this.watch = watch;
        this.copies = copies;
        this.onFileStarted = onFileStarted;
    }

    /** Writes every group of {@code plan}. */
    Streamed stream(RebuildPlan plan) {
        RollingParquetWriter writer = new RollingParquetWriter(target, settings, onFileStarted);
        RowGroupCopy copy = new RowGroupCopy(target, settings, base.formatVersion(), onFileStarted);
        TaskRows reader = TaskRows.withSources(live, base.currentSnapshot().snapshotId(), base.schema());
        RollingParquetWriter.Placement placement =
                map.placement(base.schema().columns().size());
        List<DataFile> files = new ArrayList<>();
        long rowsIn = 0;
        long rowsOut = 0;
        long copiedFiles = 0;
        long copiedBytes = 0;
        for (RebuildPlan.Group group : plan.groups()) {
            List<FileScanTask> copied = new ArrayList<>();
            List<FileScanTask> encoded = new ArrayList<>();
            for (FileScanTask task : group.tasks()) {
                // a routed group's rows change partition; a prune may drop any row: both are read
                boolean copies =
                        settings.copyRowGroups() && !group.routed() && prune.keepsEveryRow() && copy.copyable(task);
                (copies ? copied : encoded).add(task);
            }
            if (copied.size() < 2 || bytes(encoded) > bytes(copied)) {
                // one file copied alone would be the same file again; and the rest is encoded into
                // a file that is then copied on with them (one run of files per group, never a
                // copied file just short of settled beside an encoded one): worth it only when the
                // rest is the smaller part
                encoded.addAll(0, copied);
                copied.clear();
            }
            List<DataFile> encodedFiles = List.of();
            if (!encoded.isEmpty()) {
                RollingParquetWriter.Result one = encode(writer, reader, placement, group, encoded);
                encodedFiles = one.files();
                rowsIn += one.rowsIn();
                rowsOut += one.rowsOut();
                watch.check();
            }
            if (copied.isEmpty()) {
                files.addAll(encodedFiles);
                continue;
            }
            List<DataFile> inputs = new ArrayList<>();
            copied.forEach(task -> inputs.add(task.file()));
            inputs.addAll(encodedFiles); // last: a small last row group of theirs stays the last
            java.util.Set<String> onward = new java.util.HashSet<>();
            encodedFiles.forEach(file -> onward.add(file.location()));
            files.addAll(copy.copy(inputs, group.partition(), (source, rows, location, start) -> {
                if (onward.contains(source)) {
                    map.retarget(source, location, start);
                } else {
                    map.copied(source, rows, location, start);
                }
            }));
            encodedFiles.forEach(file -> target.io().deleteFile(file.location()));
            long rows =
                    copied.stream().mapToLong(task -> task.file().recordCount()).sum();
            rowsIn += rows;
            rowsOut += rows;
            copiedFiles += copied.size();
            copiedBytes += bytes(copied);
            copies.copied(copied.size(), rows, bytes(copied));
            watch.check();
        }
        return new Streamed(
                new RollingParquetWriter.Result(List.copyOf(files), rowsIn, rowsOut), copiedFiles, copiedBytes);
    }

    /** Reads {@code encoded} (deletes applied, through the prune) into new files of the group's partition. */
    private RollingParquetWriter.Result encode(
            RollingParquetWriter writer,
            TaskRows reader,
            RollingParquetWriter.Placement placement,
            RebuildPlan.Group group,
            List<FileScanTask> encoded) {
        // a routed group's files are repacked after: where their rows went is not recorded
        CloseableIterable<Record> read =
                group.routed() ? reader.rows(encoded, map::rewritingUnmapped) : reader.rows(encoded, map::rewriting);
        try (CloseableIterable<Record> rows = watch.watch(read)) {
            RollingParquetWriter.Result one = writer.write(
                    rows,
                    prune,
                    group.partition(),
                    group.routed(),
                    group.routed() ? RollingParquetWriter.Placement.NONE : placement);
            return group.routed()
                    ? new RollingParquetWriter.Result(
                            RoutedRepack.repack(one.files(), writer, target), one.rowsIn(), one.rowsOut())
                    : one;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long bytes(List<FileScanTask> tasks) {
        return tasks.stream().mapToLong(task -> task.file().fileSizeInBytes()).sum();
    }
}
