package dev.floe.runtime.rebuild;

import dev.floe.runtime.install.Installation;
import dev.floe.runtime.install.RebuiltFiles;
import dev.floe.runtime.rows.RollingParquetWriter;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * What one rebuild-and-swap did.
 *
 * @param snapshotsBefore snapshots the live table had when the rebuild pinned its base
 * @param dataFilesBefore data files of the base snapshot
 * @param dataFilesAfter data files of the rebuilt table (written plus carried over)
 * @param rows rows of the base rewritten into new files (the kept files' rows are not among them)
 * @param rowsPruned rows of the base the prune dropped
 * @param carriedFiles data files of commits that landed during the rebuild, carried over as they are
 * @param carriedRows rows in those carried files
 * @param bytesBefore data bytes of the base snapshot
 * @param bytesAfter data bytes of the rebuilt table
 * @param phases time spent per phase, in order
 * @param attempts how many times the rebuild started (more than one when a commit it cannot rebase raced it)
 * @param reclaimJob the id of the reclaim job recorded with the swap
 * @param retiredFiles how many files that job will delete after the grace window; -1 until they
 *     are listed, right after the swap
 * @param handlesReloaded tracked host handles refreshed after the swap
 * @param keptFiles data files of the base kept as they were (settled, or small in a tier not full)
 * @param keptRows rows in those files
 * @param bytesWritten bytes of the new files the rebuild wrote
 * @param full whether every file was rewritten ({@code compact --full}, {@code floe.rebuild.full-every})
 * @param commitsRebased commits that landed on the live table during the rebuild, rebased onto it
 * @param deleteFilesAfter delete files of the rebuilt table (kept with kept files, carried, rebased)
 * @param historyKept snapshots of the live table kept below the rebuilt one
 * @param historyRewritten of those, how many were rewritten onto the rebuilt files
 * @param copiedFiles files of the base whose row groups were copied as they are into the new files
 *     (not decoded: a promotion of large row groups)
 * @param copiedBytes the bytes of those files
 */
public record CompactReport(
        TableIdentifier table,
        int snapshotsBefore,
        long dataFilesBefore,
        long dataFilesAfter,
        long rows,
        long rowsPruned,
        long carriedFiles,
        long carriedRows,
        long bytesBefore,
        long bytesAfter,
        Map<String, Duration> phases,
        int attempts,
        String reclaimJob,
        int retiredFiles,
        int handlesReloaded,
        long keptFiles,
        long keptRows,
        long bytesWritten,
        boolean full,
        int commitsRebased,
        int deleteFilesAfter,
        int historyKept,
        int historyRewritten,
        long copiedFiles,
        long copiedBytes) {

    public CompactReport {
        phases = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(phases));
    }

    /** This report once the reclaim job's files are listed, with the phases up to then. */
    CompactReport listed(int files, Map<String, Duration> allPhases) {
        return new CompactReport(
                table,
                snapshotsBefore,
                dataFilesBefore,
                dataFilesAfter,
                rows,
                rowsPruned,
                carriedFiles,
                carriedRows,
                bytesBefore,
                bytesAfter,
                allPhases,
                attempts,
                reclaimJob,
                files,
                handlesReloaded,
                keptFiles,
                keptRows,
                bytesWritten,
                full,
                commitsRebased,
                deleteFilesAfter,
                historyKept,
                historyRewritten,
                copiedFiles,
                copiedBytes);
    }

    /** The report of a rebuild that just went live, its retired files not listed yet. */
    static CompactReport live(
            TableIdentifier table,
            int snapshotsBefore,
            SourceStats before,
            RebuiltFiles rebuilt,
            RowStreamer.Streamed streamed,
            RebuildPlan plan,
            int commitsRebased,
            Installation installation,
            Map<String, Duration> phases,
            int attempt,
            String reclaimJob,
            int handlesReloaded) {
        RollingParquetWriter.Result written = streamed.written();
        return new CompactReport(
                table,
                snapshotsBefore,
                before.dataFiles(),
                rebuilt.dataFiles().size(),
                written.rowsOut(),
                written.rowsIn() - written.rowsOut(),
                rebuilt.carried().size(),
                rebuilt.carried().stream().mapToLong(DataFile::recordCount).sum(),
                before.bytes(),
                rebuilt.dataFiles().stream()
                        .mapToLong(DataFile::fileSizeInBytes)
                        .sum(),
                phases,
                attempt,
                reclaimJob,
                -1,
                handlesReloaded,
                plan.kept().size(),
                plan.keptRows(),
                written.bytes(),
                plan.full(),
                commitsRebased,
                rebuilt.deletes().size(),
                installation.historyKept(),
                installation.historyRewritten(),
                streamed.copiedFiles(),
                streamed.copiedBytes());
    }

    /** The whole report on one line, for the log. */
    public String summary() {
        String retired = retiredFiles < 0 ? "retires the old table's files" : "retires " + retiredFiles + " files";
        String timing = phases.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue().toMillis() + "ms")
                .collect(Collectors.joining(" "));
        return "rebuilt " + table + (full ? " whole" : "") + ": " + snapshotsBefore + " snapshots -> 1"
                + (historyKept > 0 ? " on top of " + historyKept + " kept" : "")
                + (historyRewritten > 0 ? " (" + historyRewritten + " rewritten onto its files)" : "")
                + ", data files "
                + dataFilesBefore + " -> " + dataFilesAfter + ", kept " + keptFiles + " files of " + keptRows
                + " rows as they were, rows " + rows + " (pruned " + rowsPruned + ", carried " + carriedRows + " in "
                + carriedFiles + " files), " + commitsRebased + " commits rebased, delete files " + deleteFilesAfter
                + ", written " + bytesWritten + " bytes"
                + (copiedFiles > 0
                        ? " (row groups of " + copiedFiles + " files, " + copiedBytes + " bytes, copied)"
                        : "")
                + ", bytes " + bytesBefore + " -> "
                + bytesAfter + ", attempts " + attempts + ", "
                + timing + ", reclaim job " + reclaimJob + " " + retired + " after the grace window, " + handlesReloaded
                + " handles reloaded";
    }
}
