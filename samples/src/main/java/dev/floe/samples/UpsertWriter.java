package dev.floe.samples;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * The files of one upsert commit, as an upsert sink writes them: per partition the commit touches,
 * one Parquet data file with the new version of each key, and one Parquet equality delete file on
 * {@code id} with the same keys. Committed in one row delta, the deletes take the data files' data
 * sequence number, so they delete the keys' earlier versions (older data files of their partition)
 * and not the rows written beside them. No commit here.
 */
final class UpsertWriter {
    /** One commit's files. */
    record Files(List<DataFile> data, List<DeleteFile> deletes) {}

    private UpsertWriter() {}

    /** Writes version {@code version} of every key of {@code keys} (distinct), and its equality deletes. */
    static Files write(Table table, int[] keys, long version) throws IOException {
        Schema schema = table.schema();
        PartitionSpec spec = table.spec();
        Schema keySchema = schema.select(UpsertRows.KEY_COLUMN);
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .build();
        PartitionKey partition = new PartitionKey(spec, schema);
        InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
        GenericRecord template = GenericRecord.create(schema);
        GenericRecord keyTemplate = GenericRecord.create(keySchema);
        Map<PartitionKey, Writers> writers = new LinkedHashMap<>();
        try {
            for (int key : keys) {
                Record row = UpsertRows.row(template, key, version);
                partition.partition(wrapper.wrap(row));
                Writers writer = writers.get(partition);
                if (writer == null) {
                    PartitionKey copy = partition.copy();
                    StructLike of = spec.isPartitioned() ? copy : null;
                    writer = new Writers(
                            ParquetWriters.data(table, output(files, spec, of), of),
                            ParquetWriters.equalityDeletes(table, keySchema, output(files, spec, of), of));
                    writers.put(copy, writer);
                }
                writer.data.write(row);
                Record deleted = keyTemplate.copy();
                deleted.setField(UpsertRows.KEY_COLUMN, (long) key);
                writer.deletes.write(deleted);
            }
        } finally {
            for (Writers writer : writers.values()) {
                writer.data.close();
                writer.deletes.close();
            }
        }
        List<DataFile> data = new ArrayList<>();
        List<DeleteFile> deletes = new ArrayList<>();
        for (Writers writer : writers.values()) {
            data.add(writer.data.toDataFile());
            deletes.add(writer.deletes.toDeleteFile());
        }
        return new Files(data, deletes);
    }

    private static EncryptedOutputFile output(OutputFileFactory files, PartitionSpec spec, StructLike partition) {
        return partition == null ? files.newOutputFile() : files.newOutputFile(spec, partition);
    }

    private record Writers(DataWriter<Record> data, EqualityDeleteWriter<Record> deletes) {}
}
