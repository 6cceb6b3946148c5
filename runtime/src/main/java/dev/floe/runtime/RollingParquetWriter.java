package dev.floe.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.inmemory.InMemoryOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Streams rows into large ZSTD Parquet files in a table's data location, starting a new file past
 * the target size. Nothing is committed here: the caller commits the returned files in one append.
 *
 * <p>Row groups: Parquet flushes a row group by the bytes it has buffered, never by row count. So
 * the first rows are first written, uncompressed, to a small in-memory sample to measure how many
 * bytes a row takes in Parquet's buffers; the byte target is then set so a row group holds about
 * {@code rowGroupRows} rows, and never more than {@code rowGroupMaxBytes}. Memory is therefore
 * about one row group, as only one file is open at a time.
 *
 * <p>On any failure every file this writer started is deleted before the error is rethrown.
 */
final class RollingParquetWriter {
    /** How often, in rows, the open file's size is checked against the target. */
    private static final int SIZE_CHECK_ROWS = 1_000;
    /** Rows measured to size row groups. */
    static final int SAMPLE_ROWS = 1_024;
    /** The smallest row-group byte target, whatever the sample says. */
    private static final long MIN_ROW_GROUP_BYTES = 64L << 10;

    private final Table table;
    private final RebuildSettings settings;
    private final Consumer<String> onFileStarted;

    /**
     * @param table where the files go: its schema, spec, location provider and io
     * @param onFileStarted told each file's location before anything is written to it, so a crash
     *     mid-write can still find the file
     */
    RollingParquetWriter(Table table, RebuildSettings settings, Consumer<String> onFileStarted) {
        this.table = table;
        this.settings = settings;
        this.onFileStarted = onFileStarted;
    }

    /** The rolled files and the row accounting of one stream. */
    record Result(List<DataFile> files, long rowsIn, long rowsOut) {
        long bytes() {
            return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
        }
    }

    /** Writes {@code rows}, dropping those {@code prune} selects. */
    Result write(Iterable<Record> rows, Prune prune) {
        Files files = new Files();
        List<Record> sample = new ArrayList<>();
        long rowsIn = 0;
        try {
            for (Record row : rows) {
                rowsIn += 1;
                if (drops(prune, row)) {
                    continue;
                }
                if (files.factory != null) {
                    files.write(row);
                } else {
                    sample.add(row);
                    if (sample.size() == SAMPLE_ROWS) {
                        files.start(sample);
                        sample.clear();
                    }
                }
            }
            if (files.factory == null && !sample.isEmpty()) {
                files.start(sample);
            }
            files.closeCurrent();
            return new Result(List.copyOf(files.written), rowsIn, files.rowsOut);
        } catch (IOException | RuntimeException e) {
            files.abort(e);
            if (e instanceof RuntimeException) {
                throw (RuntimeException) e;
            }
            throw new UncheckedIOException((IOException) e);
        }
    }

    /** The files of one stream: the open one, the closed ones, and every one started. */
    private final class Files {
        private final OutputFileFactory outputs = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .operationId("floe-rebuild")
                .build();
        private final List<DataFile> written = new ArrayList<>();
        private final List<String> started = new ArrayList<>();
        private GenericAppenderFactory factory;
        private DataWriter<Record> current;
        private long rowsInFile;
        private long rowsOut;

        /** Sizes row groups from {@code sample}, then writes it. */
        void start(List<Record> sample) throws IOException {
            factory = appenderFactory();
            factory.set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Long.toString(rowGroupBytes(sample)));
            factory.set(
                    TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT,
                    Integer.toString(Math.max(100, settings.rowGroupRows() / 8)));
            for (Record row : sample) {
                write(row);
            }
        }

        void write(Record row) throws IOException {
            if (current == null) {
                EncryptedOutputFile out = outputs.newOutputFile();
                String location = out.encryptingOutputFile().location();
                onFileStarted.accept(location);
                started.add(location);
                current = factory.newDataWriter(out, FileFormat.PARQUET, null);
                rowsInFile = 0;
            }
            current.write(row);
            rowsOut += 1;
            rowsInFile += 1;
            if (rowsInFile % SIZE_CHECK_ROWS == 0 && current.length() >= settings.targetFileBytes()) {
                closeCurrent();
            }
        }

        void closeCurrent() throws IOException {
            if (current != null) {
                DataWriter<Record> closing = current;
                current = null;
                closing.close();
                written.add(closing.toDataFile());
            }
        }

        void abort(Exception failure) {
            if (current != null) {
                try {
                    current.close();
                } catch (IOException | RuntimeException e) {
                    failure.addSuppressed(e);
                }
            }
            for (String location : started) {
                try {
                    table.io().deleteFile(location);
                } catch (RuntimeException e) {
                    failure.addSuppressed(e);
                }
            }
        }
    }

    private GenericAppenderFactory appenderFactory() {
        GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
        factory.setAll(table.properties());
        factory.setAll(RebuiltTableProperties.writeProperties(settings));
        return factory;
    }

    /**
     * Bytes Parquet buffers for {@code rowGroupRows} rows like {@code sample}, within bounds: the
     * sample is written uncompressed to memory, which is what Parquet's buffers hold before a flush.
     */
    private long rowGroupBytes(List<Record> sample) throws IOException {
        GenericAppenderFactory measuring = appenderFactory();
        measuring.set(TableProperties.PARQUET_COMPRESSION, "uncompressed");
        InMemoryOutputFile out = new InMemoryOutputFile();
        FileAppender<Record> appender = measuring.newAppender(out, FileFormat.PARQUET);
        try (appender) {
            sample.forEach(appender::add);
        }
        double bytesPerRow = (double) out.toByteArray().length / sample.size();
        long aimed = (long) Math.ceil(bytesPerRow * settings.rowGroupRows());
        return Math.max(MIN_ROW_GROUP_BYTES, Math.min(aimed, settings.rowGroupMaxBytes()));
    }

    private static boolean drops(Prune prune, Record row) {
        try {
            return prune.drop(row);
        } catch (Exception e) {
            throw new RebuildException(
                    "The prune " + prune.getClass().getName() + " threw on a row, so the rebuild stopped: " + e, e);
        }
    }
}
