package dev.floe.runtime;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.PartitionUtil;

/**
 * The rows of chosen data files, their deletes applied, read by field id in the table's schema:
 * what Iceberg's generic reader does for a whole scan, for the files a {@link RebuildPlan} rewrites
 * (Iceberg's reader of single files is not public). Parquet and Avro files; an ORC file to rewrite
 * is refused by the planner with a clear message.
 */
final class TaskRows {
    private TaskRows() {}

    /** Whether floe can read {@code task}'s file to rewrite it. */
    static boolean readable(FileScanTask task) {
        return task.file().format() == FileFormat.PARQUET || task.file().format() == FileFormat.AVRO;
    }

    /** The rows of every task in {@code tasks}, one file after the other. */
    static CloseableIterable<Record> of(List<FileScanTask> tasks, Schema schema, FileIO io) {
        return CloseableIterable.concat(
                tasks.stream().map(task -> of(task, schema, io)).toList());
    }

    /** The rows of {@code task}'s file with every delete the task lists applied, projected to {@code schema}. */
    static CloseableIterable<Record> of(FileScanTask task, Schema schema, FileIO io) {
        GenericDeleteFilter deletes = new GenericDeleteFilter(io, task, schema, schema);
        Schema read = deletes.requiredSchema();
        return deletes.filter(open(task, read, io));
    }

    /** The rows of a Parquet data file this rebuild wrote (no deletes, every column in the file). */
    static CloseableIterable<Record> ofWritten(org.apache.iceberg.DataFile file, Schema schema, FileIO io) {
        return Parquet.read(io.newInputFile(file.location()))
                .project(schema)
                .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                .build();
    }

    private static CloseableIterable<Record> open(FileScanTask task, Schema read, FileIO io) {
        InputFile input = io.newInputFile(task.file());
        Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
        switch (task.file().format()) {
            case PARQUET:
                return Parquet.read(input)
                        .project(read)
                        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(read, fileSchema, constants))
                        .split(task.start(), task.length())
                        .build();
            case AVRO:
                return Avro.read(input)
                        .project(read)
                        .createResolvingReader(fileSchema -> PlannedDataReader.create(fileSchema, constants))
                        .split(task.start(), task.length())
                        .build();
            default:
                throw new RebuildException("floe reads Parquet and Avro data files only, not "
                        + task.file().format() + " (" + task.file().location() + ")");
        }
    }
}
