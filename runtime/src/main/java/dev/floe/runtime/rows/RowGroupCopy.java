package dev.floe.runtime.rows;

import dev.floe.runtime.RebuildSettings;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.encryption.PlaintextEncryptionManager;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Packs Parquet files whose row groups are already large by copying their row groups into larger
 * files byte for byte (column chunks as they are: pages, dictionaries, statistics), instead of
 * decoding every row and encoding it again. A promotion of floe's own tier outputs is such a pack:
 * their row groups were sized to {@link RebuildSettings#rowGroupRows} when they were written.
 *
 * <p>A file is copied only when its bytes are what a rebuild would write ({@link #copyable}): the
 * table's current schema (the same Parquet schema, field ids and all), ZSTD, no delete applying to
 * it, no encryption, a table of format 1 or 2 (a format 3 table's row lineage is not carried by a
 * copy), and row groups of at least half the target rows but the last. Every other file is
 * re-encoded by {@link RollingParquetWriter}. Iceberg's metrics of a copied file are its sources',
 * merged ({@link MergedMetrics}). The copy goes through parquet-java's own
 * file writer ({@link HostParquet}), which moves 8 KiB at a time into a MiB that goes to the file
 * at once ({@link BufferedOutputFile}): memory is those buffers and the footers, whatever the
 * files' size. Iceberg's {@code ParquetFileMerger} (apache/iceberg #14435, after 1.12) merges files the same way, but is not
 * in every Iceberg a host runs.
 *
 * <p>On any failure every file this copy started is deleted before the error is rethrown.
 */
public final class RowGroupCopy {
    private static final String ICEBERG_SCHEMA = "iceberg.schema";

    private final Table target;
    private final RebuildSettings settings;
    private final int formatVersion;
    private final Consumer<String> onFileStarted;

    /** Told where each copied file's rows went: rows {@code [0, rows)} of {@code source} are rows {@code [targetStart, targetStart + rows)} of {@code location}. */
    public interface Copied {
        void copied(String source, long rows, String location, long targetStart);
    }

    /**
     * @param target where the files go: its schema, spec, location provider and io
     * @param formatVersion the table's format version
     * @param onFileStarted told each file's location before anything is written to it
     */
    public RowGroupCopy(Table target, RebuildSettings settings, int formatVersion, Consumer<String> onFileStarted) {
        this.target = target;
        this.settings = settings;
        this.formatVersion = formatVersion;
        this.onFileStarted = onFileStarted;
    }

    /** Whether {@code task}'s file is copied as its row groups rather than re-encoded (its footer is read). */
    public boolean copyable(FileScanTask task) {
        DataFile file = task.file();
        if (file.format() != FileFormat.PARQUET
                || !task.deletes().isEmpty()
                || file.keyMetadata() != null
                || formatVersion >= 3
                || file.recordCount() < settings.rowGroupRows() / 2
                || !(target.encryption() instanceof PlaintextEncryptionManager)) {
            return false; // a file of fewer rows than half a row group is never read for its footer
        }
        try (Closeable reader = HostParquet.get().open(target.io().newInputFile(file.location()))) {
            HostParquet parquet = HostParquet.get();
            HostParquet.Footer footer = parquet.footer(reader);
            return footer.zstd()
                    && footer.schema().equals(parquet.schema(target.schema(), footer.schemaName()))
                    && largeRowGroups(footer.rowGroupRows(), file.recordCount(), settings.rowGroupRows());
        } catch (IOException | RuntimeException e) {
            return false; // the re-encoding read says what is wrong with the file, if anything
        }
    }

    /**
     * Whether row groups of {@code rowGroupRows} rows each hold {@code records} rows in all, each at
     * least half {@code target} rows but the last: copied, the output keeps each as it is.
     */
    static boolean largeRowGroups(long[] rowGroupRows, long records, int target) {
        long rows = 0;
        for (int i = 0; i < rowGroupRows.length; i++) {
            rows += rowGroupRows[i];
            if (i < rowGroupRows.length - 1 && rowGroupRows[i] < target / 2) {
                return false;
            }
        }
        return rowGroupRows.length > 0 && rows == records && rows >= target / 2;
    }

    /**
     * Copies the row groups of {@code files} (each {@link #copyable}, all of {@code partition}, null
     * for an unpartitioned spec) into files of about the target size, in order.
     */
    public List<DataFile> copy(List<DataFile> files, StructLike partition, Copied copied) {
        HostParquet parquet = HostParquet.get();
        OutputFileFactory outputs = OutputFileFactory.builderFor(target, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .operationId(RollingParquetWriter.OPERATION)
                .build();
        List<DataFile> written = new ArrayList<>();
        List<String> started = new ArrayList<>();
        Output out = null;
        try {
            for (DataFile file : files) {
                // by the inputs' whole sizes: their footers add up to the output's
                if (out != null && out.rows > 0 && out.bytes + file.fileSizeInBytes() > settings.targetFileBytes()) {
                    written.add(out.close(parquet, partition));
                    out = null;
                }
                try (Closeable reader = parquet.open(target.io().newInputFile(file.location()))) {
                    if (out == null) {
                        String location = (target.spec().isPartitioned()
                                        ? outputs.newOutputFile(target.spec(), partition)
                                        : outputs.newOutputFile())
                                .encryptingOutputFile()
                                .location();
                        onFileStarted.accept(location);
                        started.add(location);
                        out = new Output(parquet, location, parquet.footer(reader));
                    }
                    parquet.appendTo(reader, out.writer);
                }
                out.sources.add(file);
                copied.copied(file.location(), file.recordCount(), out.location, out.rows);
                out.rows += file.recordCount();
                out.bytes += file.fileSizeInBytes();
            }
            if (out != null) {
                written.add(out.close(parquet, partition));
            }
            return written;
        } catch (IOException | RuntimeException e) {
            if (out != null) {
                parquet.abort(out.writer, e);
            }
            for (String location : started) {
                try {
                    target.io().deleteFile(location);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (e instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new UncheckedIOException((IOException) e);
        }
    }

    /** One output file being filled. */
    private final class Output {
        final String location;
        final Object writer;
        final Map<String, String> keyValues;
        final List<DataFile> sources = new ArrayList<>();
        long rows;
        long bytes;

        Output(HostParquet parquet, String location, HostParquet.Footer first) throws IOException {
            this.location = location;
            this.keyValues = new HashMap<>(first.keyValues());
            keyValues.put(ICEBERG_SCHEMA, SchemaParser.toJson(target.schema()));
            this.writer = parquet.startWriter(
                    target.io().newOutputFile(location),
                    parquet.schema(target.schema(), first.schemaName()),
                    settings.targetFileBytes());
        }

        DataFile close(HostParquet parquet, StructLike partition) throws IOException {
            parquet.end(writer, keyValues);
            DataFiles.Builder builder = DataFiles.builder(target.spec())
                    .withPath(location)
                    .withFormat(FileFormat.PARQUET)
                    .withFileSizeInBytes(parquet.pos(writer))
                    .withMetrics(MergedMetrics.of(sources, target.schema()))
                    .withSplitOffsets(parquet.splitOffsets(writer));
            if (target.spec().isPartitioned()) {
                builder.withPartition(partition);
            }
            return builder.build();
        }
    }
}
