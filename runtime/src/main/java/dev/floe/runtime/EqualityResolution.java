package dev.floe.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
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
 * table) get its positions instead. Only those few files are read, only the delete's columns, and
 * each once an attempt (their keys stay in memory: a rebuild's carried rows, not the table's).
 */
final class EqualityResolution {
    private final Table live;
    private final BaseDeleteLoader loader;
    /** Keys of carried files already read, by file and equality fields. */
    private final Map<String, Keys> read = new HashMap<>();

    EqualityResolution(Table live) {
        this.live = live;
        this.loader = new BaseDeleteLoader(file -> live.io().newInputFile(file.location()));
    }

    /** Adds to {@code into} the rows of {@code carried} that {@code delete} deletes on the live table. */
    void resolve(DeleteFile delete, Collection<DataFile> carried, RebasedDeletes into) {
        List<DataFile> applies =
                carried.stream().filter(file -> appliesTo(delete, file)).toList();
        if (applies.isEmpty()) {
            return;
        }
        Set<Integer> fields = new HashSet<>(delete.equalityFieldIds());
        Schema keys = TypeUtil.select(live.schema(), fields);
        StructLikeSet deleted = loader.loadEqualityDeletes(List.of(delete), keys);
        for (DataFile file : applies) {
            Keys of = keysOf(file, fields, keys);
            for (int i = 0; i < of.keys.size(); i++) {
                if (deleted.contains(of.keys.get(i))) {
                    into.delete(file.location(), file.partition(), of.positions[i]);
                }
            }
        }
    }

    /** The key columns of a carried file's rows, with their positions: read once per attempt. */
    private record Keys(List<StructLike> keys, long[] positions) {}

    private Keys keysOf(DataFile file, Set<Integer> fields, Schema keys) {
        return read.computeIfAbsent(file.location() + "#" + fields, k -> {
            Schema projection = TaskRows.withPositions(keys);
            int posIndex = keys.columns().size();
            TaskRows reader = TaskRows.of(live, live.currentSnapshot().snapshotId(), projection);
            InternalRecordWrapper wrapper = new InternalRecordWrapper(keys.asStruct());
            List<StructLike> found = new ArrayList<>();
            long[] positions = new long[(int) Math.min(Integer.MAX_VALUE - 8, file.recordCount())];
            try (CloseableIterable<Record> rows = reader.rows(file, live.specs().get(file.specId()))) {
                for (Record row : rows) {
                    Record key = GenericRecord.create(keys);
                    for (int c = 0; c < posIndex; c++) {
                        key.set(c, row.get(c));
                    }
                    if (found.size() == positions.length) {
                        positions = java.util.Arrays.copyOf(positions, positions.length * 2 + 1);
                    }
                    positions[found.size()] = (Long) row.get(posIndex);
                    found.add(wrapper.copyFor(key));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new Keys(found, positions);
        });
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
