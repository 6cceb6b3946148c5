package dev.floe.samples;

import java.io.IOException;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;

/**
 * The sample hosts' Parquet writers of generic records, from Iceberg's {@link Parquet} builders:
 * the same calls on every Iceberg 1.9 to 1.12 (GenericAppenderFactory is gone from 1.12), so the
 * samples run on each version the agent supports.
 */
final class ParquetWriters {
    private ParquetWriters() {}

    /** A data file of {@code table} in {@code partition} (null when unpartitioned). */
    static DataWriter<Record> data(Table table, EncryptedOutputFile file, StructLike partition) throws IOException {
        return Parquet.writeData(file)
                .schema(table.schema())
                .createWriterFunc(GenericParquetWriter::create)
                .setAll(table.properties())
                .metricsConfig(MetricsConfig.forTable(table))
                .withSpec(table.spec())
                .withPartition(partition)
                .withKeyMetadata(file.keyMetadata())
                .overwrite()
                .build();
    }

    /** An equality delete file of {@code table} on the columns of {@code keys}, in {@code partition}. */
    static EqualityDeleteWriter<Record> equalityDeletes(
            Table table, Schema keys, EncryptedOutputFile file, StructLike partition) throws IOException {
        return Parquet.writeDeletes(file)
                .createWriterFunc(GenericParquetWriter::create)
                .withPartition(partition)
                .overwrite()
                .setAll(table.properties())
                .metricsConfig(MetricsConfig.forTable(table))
                .rowSchema(keys)
                .withSpec(table.spec())
                .withKeyMetadata(file.keyMetadata())
                .equalityFieldIds(
                        keys.columns().stream().mapToInt(c -> c.fieldId()).toArray())
                .buildEqualityWriter();
    }
}
