package dev.floe.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.StructLikeSet;
import org.apache.iceberg.util.StructLikeWrapper;
import org.apache.iceberg.util.StructProjection;

/**
 * Resolves an equality delete that committed during a rebuild to the positions it deletes in the
 * data files carried over the same stretch of time and committed before it.
 *
 * <p>Why: the rebuilt snapshot holds the pinned rows (at data sequence number 0, see {@link
 * RebuiltSnapshotCommit}) below every file carried since the pin, and the carried data and delete
 * files share the rebuilt snapshot's one sequence number. A carried equality delete therefore
 * still applies to every pinned row, as it did on the live table, and to no carried file; the
 * carried files it did apply to (those committed before it: a lower sequence number on the live
 * table) get its positions instead. Only those few files are read, and only the delete's columns.
 */
final class EqualityResolution {
    private final Table live;
    private final BaseDeleteLoader loader;

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
        Schema keys = TypeUtil.select(live.schema(), new java.util.HashSet<>(delete.equalityFieldIds()));
        StructLikeSet deleted = loader.loadEqualityDeletes(List.of(delete), keys);
        Schema read = TaskRows.withPositions(keys);
        int posIndex = keys.columns().size();
        TaskRows reader = TaskRows.of(live, live.currentSnapshot().snapshotId(), read);
        InternalRecordWrapper wrapper = new InternalRecordWrapper(read.asStruct());
        StructProjection project = StructProjection.create(read, keys);
        for (DataFile file : applies) {
            PartitionSpec spec = live.specs().get(file.specId());
            try (CloseableIterable<Record> rows = reader.rows(file, spec)) {
                for (Record row : rows) {
                    if (deleted.contains(project.wrap(wrapper.wrap(row)))) {
                        into.delete(file.location(), file.partition(), (Long) row.get(posIndex));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
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
