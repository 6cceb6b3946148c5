package dev.floe.runtime.history;

import dev.floe.runtime.Prune;
import dev.floe.runtime.deltas.CompactionMap;
import dev.floe.runtime.deltas.CompactionMap.Run;
import dev.floe.runtime.install.RewrittenSnapshot.FileImage;
import dev.floe.runtime.rows.DeleteLoaders;
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
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;

/**
 * One kept snapshot's rows, placed on the rebuilt layout: for each of its data files with the
 * deletes that applied to it then, where those rows are now.
 *
 * <ul>
 *   <li>A file still in the layout is its own image: the rows it held then.
 *   <li>A file the layout map moves is where its runs moved the rows it held then, when they moved
 *       every one of them.
 *   <li>Any other file (a row of it was deleted after this snapshot, so no rebuild kept it; or no
 *       rebuild recorded where its rows went) is kept as it is, with the rows it held then.
 * </ul>
 *
 * Each data file of the image is then listed with position deletes for the rows of it outside the
 * image ({@link FileImage}). The rows a file held at this snapshot are read from its deletes:
 * position deletes and vectors by position, equality deletes by reading the file through them.
 */
final class SnapshotImage {
    private final Table table;
    private final Map<String, DataFile> layout;
    private final LayoutMap map;
    private final Prune prune;
    private final BaseDeleteLoader loader;

    /**
     * The rows of {@code table}'s snapshots on {@code layout} (the rebuilt data files by location),
     * through {@code map}, without those {@code prune} drops.
     */
    SnapshotImage(Table table, Map<String, DataFile> layout, LayoutMap map, Prune prune) {
        this.table = table;
        this.layout = layout;
        this.map = map;
        this.prune = prune;
        this.loader = DeleteLoaders.onThisThread(delete -> table.io().newInputFile(delete.location()));
    }

    /**
     * What rewriting one snapshot found: its image, how many of its files left the layout and how
     * many of those it keeps, and how many of its rows a prune dropped.
     */
    record Result(
            List<FileImage> files,
            int left,
            int keptAsTheyAre,
            int freedHostFiles,
            long freedRebuiltBytes,
            long pruned) {
        /**
         * Whether the rewrite is worth making: it drops what a prune dropped, frees a file the host
         * wrote, or frees files an earlier rebuild wrote of at least {@code againBytes} together.
         */
        boolean worthIt(long againBytes) {
            return pruned > 0 || freedHostFiles > 0 || (freedRebuiltBytes > 0 && freedRebuiltBytes >= againBytes);
        }
    }

    /** {@code snapshot} on the layout. */
    Result of(Snapshot snapshot) {
        Map<String, Present> present = new LinkedHashMap<>();
        Map<String, DataFile> files = new LinkedHashMap<>();
        int left = 0;
        int keptAsTheyAre = 0;
        int freedHostFiles = 0;
        long freedRebuiltBytes = 0;
        long[] pruned = {0};
        try (CloseableIterable<FileScanTask> tasks = tasksOf(snapshot)) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                String location = file.location();
                if (layout.containsKey(location)) {
                    files.put(location, layout.get(location));
                    present.computeIfAbsent(location, l -> new Present()).addAll(heldThen(snapshot, task));
                    continue;
                }
                left += 1;
                Present held = heldThen(snapshot, task);
                LayoutMap.Entry entry = map.entry(location);
                List<Run> moved = entry == null ? null : movedRows(held, entry.runs());
                if (moved != null) {
                    if (RollingParquetWriter.wroteByRebuild(location)) {
                        freedRebuiltBytes += file.fileSizeInBytes();
                    } else {
                        freedHostFiles += 1;
                    }
                    for (Run run : moved) {
                        if (CompactionMap.PRUNED.equals(run.target())) {
                            pruned[0] += run.length();
                            continue;
                        }
                        files.putIfAbsent(run.target(), layout.get(run.target()));
                        present.computeIfAbsent(run.target(), l -> new Present())
                                .add(run.targetStart(), run.length());
                    }
                } else {
                    keptAsTheyAre += 1;
                    files.put(location, file);
                    present.computeIfAbsent(location, l -> new Present())
                            .addAll(prune.keepsEveryRow() ? held : read(snapshot, task, prune, pruned));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot plan snapshot " + snapshot.snapshotId(), e);
        }
        List<FileImage> images = new ArrayList<>();
        files.forEach((location, file) ->
                images.add(new FileImage(file, present.get(location).absentOf(file.recordCount()))));
        return new Result(images, left, keptAsTheyAre, freedHostFiles, freedRebuiltBytes, pruned[0]);
    }

    /**
     * A task per data file of {@code snapshot}, with the deletes that applied to it: without any
     * delete, from the remembered manifests ({@link SnapshotFiles}); else planned by Iceberg (on this
     * thread: the host's JVM exit shuts Iceberg's worker pool down while a rebuild may run).
     */
    private CloseableIterable<FileScanTask> tasksOf(Snapshot snapshot) {
        if (SnapshotFiles.hasDeletes(snapshot, table.io())) {
            return table.newScan()
                    .useSnapshot(snapshot.snapshotId())
                    .planWith(dev.floe.runtime.install.SameThread.EXECUTOR)
                    .planFiles();
        }
        String schema = org.apache.iceberg.SchemaParser.toJson(table.schemas().get(snapshot.schemaId()));
        Map<Integer, String> specs = new java.util.HashMap<>();
        List<FileScanTask> tasks = new ArrayList<>();
        for (DataFile file : SnapshotFiles.dataFiles(snapshot, table.io(), table.specs())) {
            tasks.add(new org.apache.iceberg.BaseFileScanTask(
                    file,
                    new DeleteFile[0],
                    schema,
                    specs.computeIfAbsent(
                            file.specId(),
                            id -> org.apache.iceberg.PartitionSpecParser.toJson(
                                    table.specs().get(id))),
                    org.apache.iceberg.expressions.ResidualEvaluator.unpartitioned(
                            org.apache.iceberg.expressions.Expressions.alwaysTrue())));
        }
        return CloseableIterable.withNoopClose(tasks);
    }

    /**
     * Where the rows {@code held} of a file are now, by its {@code runs} (in source order); null when
     * a run does not hold one of them (a later delete took it, so no rebuild kept it) or lands outside
     * the layout.
     */
    private List<Run> movedRows(Present held, List<Run> runs) {
        List<Run> moved = new ArrayList<>();
        int r = 0;
        for (long[] range : held.ranges()) {
            long next = range[0];
            while (next < range[1]) {
                while (r < runs.size()
                        && runs.get(r).sourceStart() + runs.get(r).length() <= next) {
                    r++;
                }
                if (r == runs.size() || runs.get(r).sourceStart() > next) {
                    return null;
                }
                Run run = runs.get(r);
                if (!CompactionMap.PRUNED.equals(run.target()) && !layout.containsKey(run.target())) {
                    return null;
                }
                long end = Math.min(range[1], run.sourceStart() + run.length());
                moved.add(new Run(next, run.target(), run.targetStart() + (next - run.sourceStart()), end - next));
                next = end;
            }
        }
        return moved;
    }

    /** The positions of {@code task}'s file that {@code snapshot} held: all but those its deletes name. */
    private Present heldThen(Snapshot snapshot, FileScanTask task) {
        long rows = task.file().recordCount();
        Present held = new Present();
        if (task.deletes().isEmpty()) {
            held.add(0, rows);
            return held;
        }
        boolean equality = task.deletes().stream().anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES);
        if (equality) {
            // which rows an equality delete removes is told by reading them
            TaskRows reader = TaskRows.of(
                    table,
                    snapshot.snapshotId(),
                    TaskRows.withPositions(table.schemas().get(snapshot.schemaId())));
            int at = table.schemas().get(snapshot.schemaId()).columns().size();
            try (CloseableIterable<Record> live = reader.rows(task)) {
                for (Record row : live) {
                    held.add((Long) row.get(at), 1);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + task.file().location(), e);
            }
            return held;
        }
        List<DeleteFile> positional = task.deletes();
        PositionDeleteIndex deleted =
                loader.loadPositionDeletes(positional, task.file().location());
        long[] next = {0};
        deleted.forEach(pos -> {
            if (pos > next[0]) {
                held.add(next[0], Math.min(pos, rows) - next[0]);
            }
            next[0] = Math.max(next[0], pos + 1);
        });
        if (next[0] < rows) {
            held.add(next[0], rows - next[0]);
        }
        return held;
    }

    /** The positions of the rows of {@code task}'s file that {@code snapshot} held, read, without those {@code drop} drops. */
    private Present read(Snapshot snapshot, FileScanTask task, Prune drop, long[] dropped) {
        org.apache.iceberg.Schema schema = table.schemas().get(snapshot.schemaId());
        TaskRows reader = TaskRows.of(table, snapshot.snapshotId(), TaskRows.withPositions(schema));
        int at = schema.columns().size();
        Present held = new Present();
        try (CloseableIterable<Record> live = reader.rows(task)) {
            for (Record row : live) {
                if (RollingParquetWriter.drops(drop, row)) {
                    dropped[0] += 1;
                } else {
                    held.add((Long) row.get(at), 1);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + task.file().location(), e);
        }
        return held;
    }

    /** Positions of one file, as sorted disjoint ranges; added in any order. */
    static final class Present {
        private final List<long[]> ranges = new ArrayList<>();
        private boolean sorted = true;

        void add(long start, long length) {
            if (length <= 0) {
                return;
            }
            if (!ranges.isEmpty()) {
                long[] last = ranges.get(ranges.size() - 1);
                if (last[1] == start) {
                    last[1] = start + length;
                    return;
                }
                sorted &= last[1] < start;
            }
            ranges.add(new long[] {start, start + length});
        }

        void addAll(Present other) {
            other.normalized().forEach(r -> add(r[0], r[1] - r[0]));
        }

        /** The positions, as sorted disjoint {@code [start, end)} ranges. */
        List<long[]> ranges() {
            return normalized();
        }

        /** The positions of {@code [0, rows)} outside these. */
        PositionDeleteIndex absentOf(long rows) {
            PositionDeleteIndex absent = Deletes.toPositionIndex(CloseableIterable.empty());
            long next = 0;
            for (long[] range : normalized()) {
                if (range[0] > next) {
                    absent.delete(next, Math.min(range[0], rows));
                }
                next = Math.max(next, range[1]);
            }
            if (next < rows) {
                absent.delete(next, rows);
            }
            return absent;
        }

        private List<long[]> normalized() {
            if (sorted) {
                return ranges;
            }
            ranges.sort((a, b) -> Long.compare(a[0], b[0]));
            List<long[]> merged = new ArrayList<>();
            for (long[] range : ranges) {
                long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
                if (last != null && range[0] <= last[1]) {
                    last[1] = Math.max(last[1], range[1]);
                } else {
                    merged.add(new long[] {range[0], range[1]});
                }
            }
            ranges.clear();
            ranges.addAll(merged);
            sorted = true;
            return ranges;
        }
    }
}
