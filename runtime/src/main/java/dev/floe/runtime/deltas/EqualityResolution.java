package dev.floe.runtime.deltas;

import dev.floe.runtime.rows.DeleteLoaders;
import dev.floe.runtime.rows.TaskRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.StructLikeMap;
import org.apache.iceberg.util.StructLikeSet;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * Resolves an equality delete that committed during a rebuild to the positions it deletes in the
 * data files carried over the same stretch of time and committed before it.
 *
 * <p>Why: the rebuilt snapshot holds the pinned rows (at data sequence number 0, see {@link
 * RebuiltSnapshotCommit}) below every file carried since the pin, and the carried data and delete
 * files share the rebuilt snapshot's one sequence number. A carried equality delete therefore
 * still applies to every pinned row, as it did on the live table, and to no carried file; the
 * carried files it did apply to (those committed before it: a lower sequence number on the live
 * table) get its positions instead. Only those files are read, only the delete's columns, each
 * once an attempt: their keys stay in memory, in an index (a rebuild's carried rows, not the
 * table's), so resolving a delete costs its own rows.
 */
final class EqualityResolution {
    private final Table live;
    private final BaseDeleteLoader loader;
    /** The keys of the carried files' rows, by the equality fields they were read for. */
    private final Map<Set<Integer>, KeyIndex> indexes = new HashMap<>();

    EqualityResolution(Table live) {
        this.live = live;
        this.loader = DeleteLoaders.onThisThread(file -> live.io().newInputFile(file.location()));
    }

    /** Where a row with a key is: a carried file and its position there. */
    private record Located(DataFile file, long position) {}

    /** Every carried row's key, each carried file read once (its key columns only). */
    private static final class KeyIndex {
        final Schema keys;
        final StructLikeMap<List<Located>> rows;
        final Set<String> indexed = new HashSet<>();

        KeyIndex(Schema keys) {
            this.keys = keys;
            this.rows = StructLikeMap.create(keys.asStruct());
        }
    }

    /**
     * Adds to {@code into} the rows of the {@code carried} files (by location) that {@code delete}
     * deletes on the live table: its keys are looked up in the index, so the cost is its rows and
     * their matches, not the carried files.
     */
    void resolve(DeleteFile delete, Map<String, DataFile> carried, RebasedDeletes into) {
        if (carried.isEmpty()) {
            return;
        }
        Set<Integer> fields = Set.copyOf(delete.equalityFieldIds());
        KeyIndex index =
                indexes.computeIfAbsent(fields, f -> new KeyIndex(TypeUtil.select(live.schema(), new HashSet<>(f))));
        for (DataFile file : carried.values()) {
            if (index.indexed.add(file.location())) {
                read(file, index);
            }
        }
        StructLikeSet deleted = loader.loadEqualityDeletes(List.of(delete), index.keys);
        for (StructLike key : deleted) {
            List<Located> found = index.rows.get(key);
            if (found == null) {
                continue;
            }
            for (Located row : found) {
                if (carried.containsKey(row.file().location()) && appliesTo(delete, row.file())) {
                    into.delete(row.file().location(), row.file().partition(), row.position());
                }
            }
        }
    }

    private void read(DataFile file, KeyIndex index) {
        Schema projection = TaskRows.withPositions(index.keys);
        int posIndex = index.keys.columns().size();
        TaskRows reader = TaskRows.of(live, live.currentSnapshot().snapshotId(), projection);
        InternalRecordWrapper wrapper = new InternalRecordWrapper(index.keys.asStruct());
        try (CloseableIterable<Record> rows = reader.rows(file, live.specs().get(file.specId()))) {
            for (Record row : rows) {
                Record key = GenericRecord.create(index.keys);
                for (int c = 0; c < posIndex; c++) {
                    key.set(c, row.get(c));
                }
                index.rows
                        .computeIfAbsent(wrapper.copyFor(key), k -> new ArrayList<>(1))
                        .add(new Located(file, (Long) row.get(posIndex)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Whether {@code delete} applies to {@code file} on the live table: a lower data sequence number,
     * and the same partition unless the delete is global (written under an unpartitioned spec).
     */
    private boolean appliesTo(DeleteFile delete, DataFile file) {
        if (file.dataSequenceNumber() == null
                || delete.dataSequenceNumber() == null
                || file.dataSequenceNumber() >= delete.dataSequenceNumber()) {
            return false;
        }
        PartitionSpec deleteSpec = live.specs().get(delete.specId());
        if (deleteSpec.isUnpartitioned()) {
            return true;
        }
        if (delete.specId() != file.specId()) {
            return false;
        }
        StructLikeWrapper a = StructLikeWrapper.forType(deleteSpec.partitionType());
        StructLikeWrapper b = StructLikeWrapper.forType(deleteSpec.partitionType());
        return Objects.equals(a.set(delete.partition()), b.set(file.partition()));
    }
}
