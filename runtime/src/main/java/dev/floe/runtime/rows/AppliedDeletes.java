package dev.floe.runtime.rows;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.StructLikeSet;
import org.apache.iceberg.util.StructProjection;

/**
 * Applies a task's deletes to the rows of its file, for one stream of a rebuild: the deletes each
 * task lists (Iceberg's planner chose them by sequence number and partition), with each equality
 * delete file read once per stream, not once per data file it applies to.
 *
 * <p>Why not Iceberg's own reader, which applies them too: it reads every equality delete again for
 * each data file, so an upsert table whose files each have hundreds of equality deletes costs
 * hundreds of reads per file, and a rebuild of it time quadratic in its commits. Position deletes
 * and vectors are read per data file as Iceberg does (they name it).
 */
final class AppliedDeletes {
    private final Table table;
    private final Schema read;
    private final int positionAt;
    private final BaseDeleteLoader loader;
    private final Map<String, StructLikeSet> equalitySets = new HashMap<>();

    /** For rows read in {@code read}, whose {@code _pos} column is at {@code positionAt}. */
    AppliedDeletes(Table table, Schema read, int positionAt) {
        this.table = table;
        this.read = read;
        this.positionAt = positionAt;
        this.loader = DeleteLoaders.onThisThread(file -> table.io().newInputFile(file.location()));
    }

    /** Whether its equality deletes are on columns this stream reads (else Iceberg's reader applies them). */
    boolean canApply(FileScanTask task) {
        for (DeleteFile delete : task.deletes()) {
            if (delete.content() == FileContent.EQUALITY_DELETES) {
                for (int id : delete.equalityFieldIds()) {
                    if (read.findField(id) == null) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** {@code rows} of {@code task}'s file, read without deletes, with the task's deletes applied. */
    CloseableIterable<Record> apply(FileScanTask task, CloseableIterable<Record> rows) {
        List<DeleteFile> positional = new ArrayList<>();
        Map<Set<Integer>, List<StructLikeSet>> equality = new HashMap<>();
        for (DeleteFile delete : task.deletes()) {
            if (delete.content() == FileContent.EQUALITY_DELETES) {
                Set<Integer> fields = Set.copyOf(delete.equalityFieldIds());
                equality.computeIfAbsent(fields, f -> new ArrayList<>()).add(setOf(delete, fields));
            } else {
                positional.add(delete);
            }
        }
        PositionDeleteIndex positions = positional.isEmpty()
                ? null
                : loader.loadPositionDeletes(positional, task.file().location());
        List<Check> checks = new ArrayList<>();
        equality.forEach((fields, sets) -> checks.add(new Check(projection(fields), sets)));
        InternalRecordWrapper wrapper = new InternalRecordWrapper(read.asStruct());
        return CloseableIterable.filter(rows, row -> {
            if (positions != null && positions.isDeleted((Long) row.get(positionAt))) {
                return false;
            }
            if (!checks.isEmpty()) {
                wrapper.wrap(row);
                for (Check check : checks) {
                    if (check.deletes(wrapper)) {
                        return false;
                    }
                }
            }
            return true;
        });
    }

    /** The rows one equality delete file deletes, read once per stream. */
    private StructLikeSet setOf(DeleteFile delete, Set<Integer> fields) {
        return equalitySets.computeIfAbsent(
                DeleteFileKey.of(delete), k -> loader.loadEqualityDeletes(List.of(delete), keys(fields)));
    }

    private Schema keys(Set<Integer> fields) {
        return TypeUtil.select(read, new HashSet<>(fields));
    }

    private StructProjection projection(Set<Integer> fields) {
        return StructProjection.create(read, keys(fields));
    }

    /** The equality deletes of one set of columns that apply to a task. */
    private record Check(StructProjection projection, List<StructLikeSet> sets) {
        boolean deletes(InternalRecordWrapper row) {
            projection.wrap(row);
            for (StructLikeSet set : sets) {
                if (set.contains(projection)) {
                    return true;
                }
            }
            return false;
        }
    }
}
