package dev.floe.runtime.rows;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildException;
import dev.floe.runtime.RebuildSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.inmemory.InMemoryOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.StructLikeWrapper;

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
 * <p>Partitions: the rows of one {@link #write} go into one partition of the table's spec, or, when
 * routed (rows of files written under an earlier spec), each into the partition the current spec
 * gives it. Routed, at most {@value #MAX_OPEN} files are open at once, each with that share of the
 * row-group, page and dictionary bytes, as Iceberg's fanout writers but bounded: the least recently written is closed
 * when another partition needs a file.
 *
 * <p>On any failure every file this writer started is deleted before the error is rethrown.
 */
public final class RollingParquetWriter {
    /** How often, in rows, the open file's size is checked against the target. */
    private static final int SIZE_CHECK_ROWS = 1_000;
    /** Rows measured to size row groups. */
    static final int SAMPLE_ROWS = 1_024;
    /** The smallest row-group byte target, whatever the sample says. */
    private static final long MIN_ROW_GROUP_BYTES = 64L << 10;
    /** Files open at once when rows are routed to their partitions. */
    static final int MAX_OPEN = 4;

    /** The operation id in the names of the files a rebuild writes ({@code 00000-1-floe-rebuild-…-00001.parquet}). */
    static final String OPERATION = "floe-rebuild";

    /** Whether {@code location} names a data file a rebuild wrote (by its name). */
    public static boolean wroteByRebuild(String location) {
        return location.substring(location.lastIndexOf('/') + 1).contains("-" + OPERATION + "-");
    }

    private final Table table;
    private final RebuildSettings settings;
    private final Consumer<String> onFileStarted;
    /**
     * Closed file's bytes per byte its writer estimated at the close, as last seen. Parquet's estimate
     * counts each column's page in progress uncompressed, so a file closed on it comes out smaller
     * than the target (by half, for a few MiB); later files of this writer roll at the target over
     * this share, so they come out at about the target, and settle ({@link SizeTiers}).
     */
    private double closedPerEstimated = 1.0;

    /**
     * @param table where the files go: its schema, spec, location provider and io
     * @param onFileStarted told each file's location before anything is written to it, so a crash
     *     mid-write can still find the file
     */
    public RollingParquetWriter(Table table, RebuildSettings settings, Consumer<String> onFileStarted) {
        this.table = table;
        this.settings = settings;
        this.onFileStarted = onFileStarted;
    }

    /** The rolled files and the row accounting of one stream. */
    public record Result(List<DataFile> files, long rowsIn, long rowsOut) {
        public long bytes() {
            return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
        }
    }

    /** The estimated length at which the open file is closed. */
    private long rollAt() {
        return (long) (settings.targetFileBytes() / closedPerEstimated);
    }

    private void learn(long estimated, long closed) {
        if (estimated > 0 && closed > 0) {
            // at most twice the target: a file closed with most of its rows still in buffers says more
            // about compression than about a file whose row groups were flushed along the way
            closedPerEstimated = Math.max(0.5, Math.min(1.0, (double) closed / estimated));
        }
    }

    /** Told where each row written went: row {@code position} of the file at {@code location}. */
    public interface Placement {
        Placement NONE = (row, location, position) -> {};

        void placed(Record row, String location, long position);

        /** {@code row} was dropped by the prune. */
        default void pruned(Record row) {}
    }

    /** Writes {@code rows} into an unpartitioned table, dropping those {@code prune} selects. */
    public Result write(Iterable<Record> rows, Prune prune) {
        return write(rows, prune, null, false, Placement.NONE);
    }

    /**
     * Writes {@code rows}, dropping those {@code prune} selects, into files of {@code partition} (null
     * for an unpartitioned spec), or, {@code routed}, each row into its partition of the table's spec.
     */
    public Result write(Iterable<Record> rows, Prune prune, StructLike partition, boolean routed, Placement placement) {
        Files files = new Files(partition, routed, placement);
        List<Record> sample = new ArrayList<>();
        // the rows seen while sampling, pruned ones too, so that the placement hears of each in order
        List<Record> seen = new ArrayList<>();
        java.util.BitSet prunedAt = new java.util.BitSet();
        long rowsIn = 0;
        try {
            for (Record row : rows) {
                rowsIn += 1;
                boolean pruned = drops(prune, row);
                if (files.factory != null) {
                    if (pruned) {
                        placement.pruned(row);
                    } else {
                        files.write(row);
                    }
                    continue;
                }
                if (pruned) {
                    prunedAt.set(seen.size());
                } else {
                    sample.add(row);
                }
                seen.add(row);
                if (sample.size() == SAMPLE_ROWS) {
                    files.start(sample, seen, prunedAt);
                    sample.clear();
                    seen.clear();
                }
            }
            if (files.factory == null && !sample.isEmpty()) {
                files.start(sample, seen, prunedAt);
            } else if (files.factory == null) {
                seen.forEach(placement::pruned); // every row pruned: no file
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

    /** The files of one stream: the open ones, the closed ones, and every one started. */
    private final class Files {
        private final OutputFileFactory outputs = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .operationId(OPERATION)
                .build();
        private final List<DataFile> written = new ArrayList<>();
        private final List<String> started = new ArrayList<>();
        /** The open files by partition, least recently written first. */
        private final Map<StructLikeWrapper, Open> open = new LinkedHashMap<>(16, 0.75f, true);

        private final StructLike partition;
        private final Placement placement;
        private final PartitionKey key;
        private final InternalRecordWrapper wrapper;
        private final StructLikeWrapper lookup;
        private GenericParquetWriters factory;
        private long rowsOut;

        Files(StructLike partition, boolean routed, Placement placement) {
            this.partition = partition;
            this.placement = placement;
            this.key = routed ? new PartitionKey(table.spec(), table.schema()) : null;
            this.wrapper = routed ? new InternalRecordWrapper(table.schema().asStruct()) : null;
            this.lookup = StructLikeWrapper.forType(table.spec().partitionType());
        }

        /** Sizes row groups from {@code sample}, then writes it. */
        /** Starts writing, sized by {@code sample}: writes {@code seen} but the rows {@code prunedAt} marks, which the placement hears of in their turn. */
        void start(List<Record> sample, List<Record> seen, java.util.BitSet prunedAt) throws IOException {
            factory = appenderFactory();
            long rowGroup = rowGroupBytes(sample);
            if (key != null) {
                // each open file gets its share of what one file buffers: row group, page, dictionary
                rowGroup = Math.max(MIN_ROW_GROUP_BYTES, rowGroup / MAX_OPEN);
                factory.set(
                        TableProperties.PARQUET_PAGE_SIZE_BYTES,
                        Long.toString(share(
                                TableProperties.PARQUET_PAGE_SIZE_BYTES,
                                TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT)));
                factory.set(
                        TableProperties.PARQUET_DICT_SIZE_BYTES,
                        Long.toString(share(
                                TableProperties.PARQUET_DICT_SIZE_BYTES,
                                TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT)));
            }
            factory.set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Long.toString(rowGroup));
            factory.set(
                    TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT,
                    Integer.toString(Math.max(100, settings.rowGroupRows() / 8)));
            for (int i = 0; i < seen.size(); i++) {
                if (prunedAt.get(i)) {
                    placement.pruned(seen.get(i));
                } else {
                    write(seen.get(i));
                }
            }
        }

        void write(Record row) throws IOException {
            Open file = key == null ? single() : routed(row);
            file.writer.write(row);
            placement.placed(row, file.location, file.rows);
            rowsOut += 1;
            file.rows += 1;
            if (file.rows % SIZE_CHECK_ROWS == 0) {
                long estimated = file.writer.length();
                if (estimated >= rollAt()) {
                    open.remove(file.key);
                    close(file);
                    learn(estimated, written.get(written.size() - 1).fileSizeInBytes());
                }
            }
        }

        /** The one open file of the stream's partition. */
        private Open single() {
            Open file = open.isEmpty() ? null : open.values().iterator().next();
            if (file == null) {
                file = new Open(partition);
                open.put(file.key, file);
            }
            return file;
        }

        /** The open file of {@code row}'s partition; the least recently written closes for a new one past {@link #MAX_OPEN}. */
        private Open routed(Record row) throws IOException {
            key.partition(wrapper.wrap(row));
            Open file = open.get(lookup.set(key));
            if (file == null) {
                if (open.size() >= MAX_OPEN) {
                    Iterator<Open> eldest = open.values().iterator();
                    Open closing = eldest.next();
                    eldest.remove();
                    close(closing);
                }
                file = new Open(key.copy());
                open.put(file.key, file);
            }
            return file;
        }

        void closeCurrent() throws IOException {
            // one at a time, each out of the open files only once closed: should a close fail, the
            // others are still there for abort() to close and delete
            while (!open.isEmpty()) {
                Map.Entry<StructLikeWrapper, Open> first =
                        open.entrySet().iterator().next();
                close(first.getValue());
                open.remove(first.getKey());
            }
        }

        private void close(Open file) throws IOException {
            file.writer.close();
            written.add(file.writer.toDataFile());
        }

        void abort(Exception failure) {
            for (Open file : open.values()) {
                try {
                    file.writer.close();
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

        /** One open file, of one partition. */
        private final class Open {
            final StructLikeWrapper key;
            final DataWriter<Record> writer;
            final String location;
            long rows;

            Open(StructLike partition) {
                this.key =
                        StructLikeWrapper.forType(table.spec().partitionType()).set(partition);
                EncryptedOutputFile out = table.spec().isPartitioned()
                        ? outputs.newOutputFile(table.spec(), partition)
                        : outputs.newOutputFile();
                this.location = out.encryptingOutputFile().location();
                onFileStarted.accept(location);
                started.add(location);
                this.writer = factory.dataWriter(out, partition);
            }
        }
    }

    /** One open file's share of the table's {@code property} (bytes), when rows are routed. */
    private long share(String property, long fallback) {
        long whole = org.apache.iceberg.util.PropertyUtil.propertyAsLong(table.properties(), property, fallback);
        return Math.max(8L << 10, whole / MAX_OPEN);
    }

    private GenericParquetWriters appenderFactory() {
        return new GenericParquetWriters(table.schema(), table.spec())
                .setAll(table.properties())
                .setAll(RebuiltTableProperties.writeProperties(settings));
    }

    /**
     * Bytes Parquet buffers for {@code rowGroupRows} rows like {@code sample}, within bounds: the
     * sample is written uncompressed to memory, which is what Parquet's buffers hold before a flush.
     */
    private long rowGroupBytes(List<Record> sample) throws IOException {
        GenericParquetWriters measuring = appenderFactory().set(TableProperties.PARQUET_COMPRESSION, "uncompressed");
        InMemoryOutputFile out = new InMemoryOutputFile();
        FileAppender<Record> appender = measuring.appender(out);
        try (appender) {
            sample.forEach(appender::add);
        }
        double bytesPerRow = (double) out.toByteArray().length / sample.size();
        long aimed = (long) Math.ceil(bytesPerRow * settings.rowGroupRows());
        return Math.max(MIN_ROW_GROUP_BYTES, Math.min(aimed, settings.rowGroupMaxBytes()));
    }

    public static boolean drops(Prune prune, Record row) {
        try {
            return prune.drop(row);
        } catch (Exception e) {
            throw new RebuildException(
                    "The prune " + prune.getClass().getName() + " threw on a row, so the rebuild stopped: " + e, e);
        }
    }
}
