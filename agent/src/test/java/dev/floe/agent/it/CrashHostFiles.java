package dev.floe.agent.it;

import java.io.IOException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/** How the test hosts write one data file of rows {@code firstId ..}, with plain Iceberg. */
final class CrashHostFiles {
    private CrashHostFiles() {}

    /** Extra payload characters per row, from {@code -Dcrash.payload-chars} (0: "row-<id>" only). */
    static final int PAYLOAD = Integer.getInteger("crash.payload-chars", 0);

    /** The rows {@code firstId ..} in one file per partition of the table's spec they fall in. */
    static java.util.List<DataFile> writeByPartition(Table table, long firstId, int count) throws IOException {
        if (!table.spec().isPartitioned()) {
            return java.util.List.of(write(table, firstId, count));
        }
        org.apache.iceberg.PartitionKey key = new org.apache.iceberg.PartitionKey(table.spec(), table.schema());
        org.apache.iceberg.data.InternalRecordWrapper wrapper =
                new org.apache.iceberg.data.InternalRecordWrapper(table.schema().asStruct());
        java.util.Map<org.apache.iceberg.PartitionKey, java.util.List<Long>> ids = new java.util.LinkedHashMap<>();
        for (long id = firstId; id < firstId + count; id++) {
            key.partition(wrapper.wrap(row(table, id)));
            ids.computeIfAbsent(key.copy(), k -> new java.util.ArrayList<>()).add(id);
        }
        java.util.List<DataFile> files = new java.util.ArrayList<>();
        for (java.util.Map.Entry<org.apache.iceberg.PartitionKey, java.util.List<Long>> e : ids.entrySet()) {
            files.add(write(table, e.getValue(), e.getKey()));
        }
        return files;
    }

    private static Record row(Table table, long id) {
        GenericRecord row = GenericRecord.create(table.schema());
        row.setField("id", id);
        StringBuilder payload = new StringBuilder("row-").append(id);
        for (long x = id; payload.length() < 4 + PAYLOAD; x = x * 6364136223846793005L + 1442695040888963407L) {
            payload.append(Long.toHexString(x));
        }
        row.setField("payload", payload.toString());
        return row;
    }

    private static DataFile write(Table table, java.util.List<Long> ids, StructLike partition) throws IOException {
        GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
        factory.setAll(table.properties());
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .build();
        DataWriter<Record> writer =
                factory.newDataWriter(files.newOutputFile(table.spec(), partition), FileFormat.PARQUET, partition);
        try (writer) {
            for (long id : ids) {
                writer.write(row(table, id));
            }
        }
        return writer.toDataFile();
    }

    static DataFile write(Table table, long firstId, int count) throws IOException {
        GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
        factory.setAll(table.properties());
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .build();
        DataWriter<Record> writer = factory.newDataWriter(files.newOutputFile(), FileFormat.PARQUET, (StructLike) null);
        try (writer) {
            for (long id = firstId; id < firstId + count; id++) {
                writer.write(row(table, id));
            }
        }
        return writer.toDataFile();
    }

    /** An equality-delete file (on {@code id}, unpartitioned) of ids {@code firstId ..}. */
    static org.apache.iceberg.DeleteFile equalityDeletes(Table table, long firstId, int count) throws IOException {
        org.apache.iceberg.Schema idOnly = table.schema().select("id");
        GenericAppenderFactory factory = new GenericAppenderFactory(
                table.schema(),
                table.spec(),
                new int[] {table.schema().findField("id").fieldId()},
                idOnly,
                null);
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .build();
        org.apache.iceberg.deletes.EqualityDeleteWriter<Record> writer =
                factory.newEqDeleteWriter(files.newOutputFile(), FileFormat.PARQUET, null);
        try (writer) {
            for (long id = firstId; id < firstId + count; id++) {
                Record key = GenericRecord.create(idOnly);
                key.setField("id", id);
                writer.write(key);
            }
        }
        return writer.toDeleteFile();
    }
}
