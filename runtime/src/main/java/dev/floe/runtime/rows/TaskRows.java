package dev.floe.runtime.rows;

import dev.floe.runtime.RebuildException;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Types;

/**
 * The rows of chosen data files, their deletes applied, read by field id in the table's schema:
 * Iceberg's own generic reader ({@code org.apache.iceberg.data.GenericReader}, what {@code
 * IcebergGenerics} reads a whole scan with) applied to the files a {@link RebuildPlan} rewrites,
 * one task at a time. That reader is not public, so it is reached reflectively; floe's own code
 * names no Parquet or Avro type, which hosts such as Flink's Iceberg runtime relocate. Parquet and
 * Avro files; an ORC file to rewrite is refused by the planner with a clear message.
 */
public final class TaskRows {
    private final Object reader;
    private final Method open;
    private final Table table;
    /** Applies deletes when the rows carry their positions; null when they do not. */
    private final AppliedDeletes deletes;

    private TaskRows(Table table, TableScan scan) {
        this.table = table;
        int positionAt = -1;
        List<Types.NestedField> columns = scan.schema().columns();
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).fieldId() == MetadataColumns.ROW_POSITION.fieldId()) {
                positionAt = i;
            }
        }
        this.deletes = positionAt < 0 ? null : new AppliedDeletes(table, scan.schema(), positionAt);
        try {
            Class<?> type =
                    Class.forName("org.apache.iceberg.data.GenericReader", true, TableScan.class.getClassLoader());
            Constructor<?> constructor = type.getDeclaredConstructor(TableScan.class, boolean.class);
            constructor.setAccessible(true);
            this.reader = constructor.newInstance(scan, false);
            this.open = type.getMethod("open", FileScanTask.class); // public only: its private lambdas name ORC types
            this.open.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new RebuildException(
                    "floe cannot reach Iceberg's generic reader (org.apache.iceberg.data.GenericReader"
                            + " of iceberg-data) to read the files it rewrites: " + e,
                    e);
        }
    }

    /** A reader of {@code table}'s files as of {@code snapshotId}, in {@code schema}. */
    public static TaskRows of(Table table, long snapshotId, Schema schema) {
        return new TaskRows(table, table.newScan().useSnapshot(snapshotId).project(schema));
    }

    /**
     * A reader of {@code table}'s files as of {@code snapshotId}, in {@code schema} followed by each
     * row's position in its file ({@code _pos}, at index {@code schema.columns().size()}) and its
     * file's location ({@code _file}, the next): what the {@link CompactionMap} records.
     */
    public static TaskRows withSources(Table table, long snapshotId, Schema schema) {
        List<Types.NestedField> columns = new ArrayList<>(withPositions(schema).columns());
        columns.add(MetadataColumns.FILE_PATH);
        return of(table, snapshotId, new Schema(columns));
    }

    /** {@code schema} followed by the row position metadata column. */
    public static Schema withPositions(Schema schema) {
        List<Types.NestedField> columns = new ArrayList<>(schema.columns());
        columns.add(MetadataColumns.ROW_POSITION);
        return new Schema(columns);
    }

    /** A reader of files of {@code table} as it is now (files a rebuild wrote), in its schema. */
    public static TaskRows current(Table table) {
        return new TaskRows(table, table.newScan().project(table.schema()));
    }

    /** Whether floe can read {@code task}'s file to rewrite it. */
    public static boolean readable(FileScanTask task) {
        return task.file().format() == FileFormat.PARQUET || task.file().format() == FileFormat.AVRO;
    }

    /**
     * The rows of every task in {@code tasks}, one file after the other, each file opened only when
     * its rows are reached and let go once they are read: an opened reader holds a copy of the
     * Hadoop configuration (about 100 KB), and a group of a few hundred small files opened at once
     * held tens of MB of them for the whole stream.
     */
    public CloseableIterable<Record> rows(List<FileScanTask> tasks) {
        return CloseableIterable.concat(
                tasks.stream().map(task -> OpenedOnRead.of(() -> rows(task))).toList());
    }

    /**
     * {@link #rows(List)}, telling {@code onFile} each task's file location before its first row (and
     * before a file with no row left is passed over).
     */
    public CloseableIterable<Record> rows(List<FileScanTask> tasks, Consumer<String> onFile) {
        return CloseableIterable.concat(tasks.stream()
                .map(task ->
                        announced(OpenedOnRead.of(() -> rows(task)), task.file().location(), onFile))
                .toList());
    }

    private static CloseableIterable<Record> announced(
            CloseableIterable<Record> rows, String location, Consumer<String> onFile) {
        return new CloseableIterable<>() {
            @Override
            public CloseableIterator<Record> iterator() {
                onFile.accept(location);
                return rows.iterator();
            }

            @Override
            public void close() throws IOException {
                rows.close();
            }
        };
    }

    /**
     * The rows of {@code task}'s file with every delete the task lists applied: by {@link
     * AppliedDeletes} when the rows carry their positions (each equality delete read once per
     * reader), else by Iceberg's reader.
     */
    public CloseableIterable<Record> rows(FileScanTask task) {
        if (deletes != null && !task.deletes().isEmpty() && deletes.canApply(task)) {
            return deletes.apply(task, open(withoutDeletes(task)));
        }
        return open(task);
    }

    private FileScanTask withoutDeletes(FileScanTask task) {
        return new BaseFileScanTask(
                task.file(),
                new DeleteFile[0],
                SchemaParser.toJson(table.schema()),
                PartitionSpecParser.toJson(task.spec()),
                ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
    }

    @SuppressWarnings("unchecked")
    private CloseableIterable<Record> open(FileScanTask task) {
        try {
            return (CloseableIterable<Record>) open.invoke(reader, task);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new RebuildException("Cannot read " + task.file().location() + ": " + e.getCause(), e.getCause());
        } catch (IllegalAccessException e) {
            throw new RebuildException("Cannot read " + task.file().location() + ": " + e, e);
        }
    }

    /** The rows of a data file this rebuild wrote (no deletes, in the table's current spec). */
    public CloseableIterable<Record> rows(DataFile written) {
        return rows(written, table.spec());
    }

    /** The rows of data file {@code file} of {@code spec}, no delete applied. */
    public CloseableIterable<Record> rows(DataFile file, PartitionSpec spec) {
        return rows(new BaseFileScanTask(
                file,
                new DeleteFile[0],
                SchemaParser.toJson(table.schema()),
                PartitionSpecParser.toJson(spec),
                ResidualEvaluator.unpartitioned(Expressions.alwaysTrue())));
    }
}
