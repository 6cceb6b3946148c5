package dev.floe.runtime.deltas;

import dev.floe.runtime.rows.DeleteFileKey;
import dev.floe.runtime.rows.GenericParquetWriters;
import dev.floe.runtime.seam.RebuildJournal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * The deletes a rebuild writes itself while it rebases row deltas ({@link DeltaRebase}): positions of
 * rows that commits since the pin deleted, in the files of the rebuilt table (a rewritten row's new
 * place, by the {@link CompactionMap}; a carried file's row an equality delete resolved to).
 *
 * <p>Written at each {@link #flush}: in format 2 one position-delete file per data file, holding the
 * positions added since the last flush; in format 3 one deletion vector per data file (a data file
 * has at most one), holding all its positions, merged with the vector the table already holds for
 * it, which it then replaces ({@link #replaced}).
 */
final class RebasedDeletes {
    private final Table target;
    private final boolean vectors;
    private final RebuildJournal journal;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    /** The deletion vector written last for a data file (format 3). */
    private final Map<String, DeleteFile> vectorOf = new HashMap<>();

    /** The position-delete files written for a data file (format 2). */
    private final Map<String, List<DeleteFile>> positionFilesOf = new HashMap<>();

    private final List<DeleteFile> files = new ArrayList<>();
    private final List<DeleteFile> replaced = new ArrayList<>();

    private static final class Entry {
        final StructLike partition;
        final PositionDeleteIndex all = emptyIndex();
        PositionDeleteIndex pending = emptyIndex();
        boolean dirty;

        Entry(StructLike partition) {
            this.partition = partition;
        }

        void delete(long start, long length) {
            all.delete(start, start + length);
            pending.delete(start, start + length);
            dirty = true;
        }
    }

    RebasedDeletes(Table target, int formatVersion, RebuildJournal journal) {
        this.target = target;
        this.vectors = formatVersion >= 3;
        this.journal = journal;
    }

    /** Row {@code pos} of data file {@code path} (of {@code partition}) is deleted. */
    void delete(String path, StructLike partition, long pos) {
        deleteRange(path, partition, pos, 1);
    }

    /** Rows {@code start .. start+length-1} of data file {@code path} are deleted. */
    void deleteRange(String path, StructLike partition, long start, long length) {
        if (length > 0) {
            entries.computeIfAbsent(path, p -> new Entry(partition)).delete(start, length);
        }
    }

    /** Data file {@code path} left the table: nothing of this is written for it any more. */
    void forget(String path) {
        entries.remove(path);
        List<DeleteFile> gone = new ArrayList<>(positionFilesOf.getOrDefault(path, List.of()));
        positionFilesOf.remove(path);
        DeleteFile vector = vectorOf.remove(path);
        if (vector != null) {
            gone.add(vector);
        }
        files.removeAll(gone);
        gone.forEach(this::deleteUnlessShared);
    }

    /** Deletes a file written here that the rebuilt table no longer lists, unless a vector still listed shares it. */
    private void deleteUnlessShared(DeleteFile dropped) {
        if (files.stream().noneMatch(f -> f.location().equals(dropped.location()))) {
            target.io().deleteFile(dropped.location());
        }
    }

    /** Whether deletes for data file {@code path} were added here. */
    boolean touches(String path) {
        return entries.containsKey(path);
    }

    /** The next flush writes {@code path}'s vector again (format 3): the table was given another for it. */
    void touch(String path) {
        Entry entry = entries.get(path);
        if (entry != null) {
            entry.dirty = true;
        }
    }

    /**
     * Writes the deletes added since the last flush. {@code tableVector} gives the deletion vector the
     * rebuilt table would otherwise hold for a data file (one carried from the live table), or null;
     * format 3 merges it into the one written here, and lists it in {@link #replaced}.
     */
    void flush(Function<String, DeleteFile> tableVector, Function<DeleteFile, PositionDeleteIndex> load) {
        try {
            if (vectors) {
                flushVectors(tableVector, load);
            } else {
                flushPositionFiles();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the rebased deletes of " + target.name(), e);
        }
    }

    private void flushPositionFiles() throws IOException {
        GenericParquetWriters factory =
                new GenericParquetWriters(target.schema(), target.spec()).setAll(target.properties());
        OutputFileFactory outputs = outputs(FileFormat.PARQUET);
        PositionDelete<Record> delete = PositionDelete.create();
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            Entry entry = e.getValue();
            if (!entry.dirty || entry.pending.isEmpty()) {
                continue;
            }
            PositionDeleteWriter<Record> writer = factory.positionDeleteWriter(
                    target.spec().isPartitioned()
                            ? outputs.newOutputFile(target.spec(), entry.partition)
                            : outputs.newOutputFile(),
                    entry.partition);
            try (writer) {
                entry.pending.forEach(pos -> writer.write(delete.set(e.getKey(), pos)));
            }
            files.add(writer.toDeleteFile());
            positionFilesOf.computeIfAbsent(e.getKey(), p -> new ArrayList<>()).add(writer.toDeleteFile());
            entry.pending = emptyIndex();
            entry.dirty = false;
        }
    }

    private void flushVectors(Function<String, DeleteFile> tableVector, Function<DeleteFile, PositionDeleteIndex> load)
            throws IOException {
        Map<String, DeleteFile> merged = new HashMap<>();
        BaseDVFileWriter writer = new BaseDVFileWriter(outputs(FileFormat.PUFFIN), path -> {
            DeleteFile previous = tableVector.apply(path);
            if (previous == null) {
                return null;
            }
            merged.put(path, previous);
            PositionDeleteIndex positions = load.apply(previous);
            // its positions are this file's from now on: the next flush writes them again
            entries.get(path).all.merge(positions);
            return positions;
        });
        boolean any = false;
        try (writer) {
            for (Map.Entry<String, Entry> e : entries.entrySet()) {
                Entry entry = e.getValue();
                if (!entry.dirty) {
                    continue;
                }
                entry.all.forEach(pos -> writer.delete(e.getKey(), pos, target.spec(), entry.partition));
                entry.dirty = false;
                any = true;
            }
        }
        if (!any) {
            return;
        }
        List<DeleteFile> superseded = new ArrayList<>();
        for (DeleteFile vector : writer.result().deleteFiles()) {
            String path = vector.referencedDataFile();
            DeleteFile earlier = vectorOf.put(path, vector);
            if (earlier != null) {
                files.remove(earlier);
                superseded.add(earlier);
            }
            files.add(vector);
        }
        replaced.addAll(merged.values());
        // a Puffin file written here holds the vectors of one flush: it goes with the last of them
        superseded.forEach(this::deleteUnlessShared);
    }

    /** Every delete file written here that the rebuilt table holds. */
    List<DeleteFile> files() {
        return List.copyOf(files);
    }

    /** Whether the delete file of {@code deleteFileKey} ({@link DeleteFileKey}) is a carried vector that one written here merged and replaces. */
    boolean replaces(String deleteFileKey) {
        return replaced.stream().anyMatch(f -> DeleteFileKey.of(f).equals(deleteFileKey));
    }

    /** The carried deletion vectors that a vector written here merged and replaces. */
    List<DeleteFile> replaced() {
        return List.copyOf(replaced);
    }

    private OutputFileFactory outputs(FileFormat format) {
        return OutputFileFactory.builderFor(target, 2, System.nanoTime())
                .format(format)
                .operationId("floe-rebase")
                .ioSupplier(() -> new AnnouncingFileIO(target.io(), journal::fileStarted))
                .build();
    }

    private static PositionDeleteIndex emptyIndex() {
        return Deletes.toPositionIndex(CloseableIterable.empty());
    }
}
