package dev.floe.samples;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/** The sample ingest's rows: an id, a time, a device, a value and a payload, all derived from the id. */
public final class Events {
    public static final Schema SCHEMA = new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "ts", Types.TimestampType.withZone()),
            optional(3, "device", Types.StringType.get()),
            optional(4, "value", Types.DoubleType.get()),
            optional(5, "payload", Types.StringType.get()));

    private static final long TS_BASE_MILLIS =
            Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();

    private Events() {}

    /** Writes rows {@code firstId .. firstId+count-1} to one new Parquet data file; no commit. */
    public static DataFile writeFile(Table table, long firstId, int count) throws IOException {
        return writeFile(table, firstId, count, Events::row);
    }

    /**
     * Writes rows {@code firstId .. firstId+count-1} to new Parquet data files, one per partition of
     * the table's spec they fall in (one file when unpartitioned); no commit.
     */
    public static java.util.List<DataFile> writeFiles(Table table, long firstId, int count) throws IOException {
        if (!table.spec().isPartitioned()) {
            return java.util.List.of(writeFile(table, firstId, count));
        }
        Schema schema = table.schema();
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .build();
        org.apache.iceberg.PartitionKey key = new org.apache.iceberg.PartitionKey(table.spec(), schema);
        org.apache.iceberg.data.InternalRecordWrapper wrapper =
                new org.apache.iceberg.data.InternalRecordWrapper(schema.asStruct());
        java.util.Map<org.apache.iceberg.PartitionKey, DataWriter<Record>> writers = new java.util.LinkedHashMap<>();
        GenericRecord template = GenericRecord.create(schema);
        try {
            for (long id = firstId; id < firstId + count; id++) {
                Record row = row(template, id);
                key.partition(wrapper.wrap(row));
                DataWriter<Record> writer = writers.get(key);
                if (writer == null) {
                    org.apache.iceberg.PartitionKey copy = key.copy();
                    writer = ParquetWriters.data(table, files.newOutputFile(table.spec(), copy), copy);
                    writers.put(copy, writer);
                }
                writer.write(row);
            }
        } finally {
            for (DataWriter<Record> writer : writers.values()) {
                writer.close();
            }
        }
        return writers.values().stream().map(DataWriter::toDataFile).toList();
    }

    /** One row of a table, made from a copy of its schema's template record. */
    @FunctionalInterface
    public interface RowMaker {
        Record row(GenericRecord template, long id);
    }

    /**
     * Writes the rows {@code rows} makes for ids {@code firstId .. firstId+count-1} to one new Parquet
     * data file of {@code table}; no commit.
     */
    public static DataFile writeFile(Table table, long firstId, int count, RowMaker rows) throws IOException {
        Schema schema = table.schema();
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .build();
        DataWriter<Record> writer = ParquetWriters.data(table, files.newOutputFile(), null);
        try (writer) {
            GenericRecord template = GenericRecord.create(schema);
            for (long id = firstId; id < firstId + count; id++) {
                writer.write(rows.row(template, id));
            }
        }
        return writer.toDataFile();
    }

    /** The row the sample writes for {@code id}: what a reader checks the rows it reads back against. */
    public static Record row(GenericRecord template, long id) {
        Record row = template.copy();
        row.setField("id", id);
        row.setField("ts", OffsetDateTime.ofInstant(Instant.ofEpochMilli(TS_BASE_MILLIS + id * 10), ZoneOffset.UTC));
        row.setField("device", "device-" + Math.floorMod(id, 64));
        row.setField("value", id * 0.25);
        row.setField("payload", String.format(Locale.ROOT, "%016x%016x%016x", mix(id), mix(id + 1), mix(id + 2)));
        return row;
    }

    private static long mix(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
