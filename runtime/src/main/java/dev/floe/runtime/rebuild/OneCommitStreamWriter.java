package dev.floe.runtime.rebuild;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildException;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.rows.RollingParquetWriter;
import java.util.List;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitStateUnknownException;

/**
 * Appends a stream of rows to a table as a few large ZSTD Parquet files in exactly one commit:
 * the table gains one snapshot however many rows and files there are. Empty input, or a prune that
 * drops every row, commits nothing.
 */
public final class OneCommitStreamWriter {
    private final RebuildSettings settings;

    public OneCommitStreamWriter(RebuildSettings settings) {
        this.settings = settings;
    }

    /** Rows in, rows kept, and the files committed. */
    public record Result(long rowsIn, long rowsOut, List<DataFile> files) {}

    /**
     * Writes {@code rows} into {@code table} and commits them in one fast append.
     *
     * @throws RebuildException if the table is partitioned (unsupported) or the prune throws; no
     *     file is left behind
     */
    public Result append(Table table, Iterable<Record> rows, Prune prune) {
        if (table.spec().isPartitioned()) {
            throw new RebuildException("Table " + table.name() + " is partitioned (" + table.spec()
                    + "); the one-commit" + " stream writer writes unpartitioned tables only");
        }
        RollingParquetWriter.Result written =
                new RollingParquetWriter(table, settings, location -> {}).write(rows, prune);
        if (written.files().isEmpty()) {
            return new Result(written.rowsIn(), 0, List.of());
        }
        AppendFiles append = table.newFastAppend();
        written.files().forEach(append::appendFile);
        try {
            append.commit();
        } catch (CommitStateUnknownException e) {
            throw e; // the files may be committed: never delete them
        } catch (RuntimeException e) {
            for (DataFile file : written.files()) {
                try {
                    table.io().deleteFile(file.location());
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        return new Result(written.rowsIn(), written.rowsOut(), written.files());
    }
}
