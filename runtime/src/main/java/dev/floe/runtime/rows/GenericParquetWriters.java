package dev.floe.runtime.rows;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;

/**
 * Iceberg's generic-record Parquet writers with the write properties floe sets, built from {@link
 * Parquet}'s builders, which every Iceberg floe supports (1.9 to 1.12) has alike: the host's
 * Iceberg is the one these link against, and {@code GenericAppenderFactory}, which floe used
 * before, is gone from 1.12.
 *
 * <p>No floe class names a Parquet type ({@code ParquetClassesTest}): the Iceberg runtimes of engines
 * ({@code iceberg-flink-runtime}, {@code iceberg-spark-runtime}) relocate Parquet inside them, so a
 * reference to {@code org.apache.parquet.schema.MessageType} does not link there. The value writer
 * is therefore {@code GenericParquetWriter.create(Schema, <its MessageType>)} found by name.
 */
public final class GenericParquetWriters {
    @SuppressWarnings("rawtypes")
    private static final BiFunction VALUE_WRITER = valueWriter();

    private final Schema schema;
    private final PartitionSpec spec;
    private final Map<String, String> config = new HashMap<>();

    public GenericParquetWriters(Schema schema, PartitionSpec spec) {
        this.schema = schema;
        this.spec = spec;
    }

    public GenericParquetWriters setAll(Map<String, String> properties) {
        config.putAll(properties);
        return this;
    }

    GenericParquetWriters set(String property, String value) {
        config.put(property, value);
        return this;
    }

    /** A data file of the spec's {@code partition} (null when unpartitioned). */
    DataWriter<Record> dataWriter(EncryptedOutputFile file, StructLike partition) {
        try {
            return Parquet.writeData(file)
                    .schema(schema)
                    .createWriterFunc(VALUE_WRITER)
                    .setAll(config)
                    .metricsConfig(MetricsConfig.fromProperties(config))
                    .withSpec(spec)
                    .withPartition(partition)
                    .withKeyMetadata(file.keyMetadata())
                    .overwrite()
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot open " + file.encryptingOutputFile().location(), e);
        }
    }

    /** A plain Parquet file of rows, no data file of a table (row group sizing writes one to memory). */
    FileAppender<Record> appender(OutputFile file) {
        try {
            return Parquet.write(file)
                    .schema(schema)
                    .createWriterFunc(VALUE_WRITER)
                    .setAll(config)
                    .metricsConfig(MetricsConfig.fromProperties(config))
                    .overwrite()
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open " + file.location(), e);
        }
    }

    /** {@code GenericParquetWriter.create(schema, fileSchema)}, whatever its Parquet's package. */
    @SuppressWarnings("rawtypes")
    private static BiFunction valueWriter() {
        for (Method method : GenericParquetWriter.class.getMethods()) {
            if (method.getName().equals("create")
                    && Modifier.isStatic(method.getModifiers())
                    && method.getParameterCount() == 2
                    && method.getParameterTypes()[0] == Schema.class) {
                return (schema, fileSchema) -> {
                    try {
                        return method.invoke(null, schema, fileSchema);
                    } catch (InvocationTargetException e) {
                        throw e.getCause() instanceof RuntimeException
                                ? (RuntimeException) e.getCause()
                                : new IllegalStateException(e.getCause());
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                };
            }
        }
        return (schema, fileSchema) -> {
            throw new IllegalStateException("floe cannot write Parquet with this Iceberg: "
                    + GenericParquetWriter.class.getName() + " has no create(Schema, MessageType)");
        };
    }

    /** A position delete file (path and position, no row) of the spec's {@code partition}. */
    public PositionDeleteWriter<Record> positionDeleteWriter(EncryptedOutputFile file, StructLike partition) {
        try {
            return Parquet.writeDeletes(file)
                    .createWriterFunc(VALUE_WRITER)
                    .withPartition(partition)
                    .overwrite()
                    .setAll(config)
                    .metricsConfig(MetricsConfig.fromProperties(config))
                    .withSpec(spec)
                    .withKeyMetadata(file.keyMetadata())
                    .buildPositionWriter();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot open " + file.encryptingOutputFile().location(), e);
        }
    }
}
