package dev.floe.runtime.rebuild;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.deltas.CompactionMap;
import dev.floe.runtime.rows.RollingParquetWriter;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.RebuildJournal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The major work of a table, apart from its rebuilds: the groups a rebuild's plan found too large
 * to pack while the ingest waits ({@link RebuildSettings#majorBytes}; promotions of settled tiers)
 * are written into new files on {@link Promotions}' own thread, from the snapshot that rebuild
 * pinned, with their {@link CompactionMap}. It commits nothing: the next rebuild of the table
 * installs the files it wrote in place of its inputs ({@link Written#notAdoptableAt}), and the rebuilds
 * at the trigger keep the inputs as they are meanwhile, so new small files never wait behind it.
 *
 * <p>Every file it writes is in a journal of its own before a byte is written ({@link
 * RebuildJournal#forMajor});
 * recovery deletes those the table does not reference.
 */
final class MajorRebuild {
    /** What a major rebuild wrote, until a rebuild installs it or it is discarded. */
    record Written(
            Set<String> inputs,
            List<DataFile> outputs,
            CompactionMap map,
            long rows,
            long inputBytes,
            TableIdentifier journalKey,
            List<String> journalFiles,
            int specId,
            int schemaId) {

        /**
         * Whether a rebuild that found {@code apart} (the tasks of its pinned snapshot whose files
         * are this work's inputs) can install it: every input is still in the table, and no delete
         * applies to any (the outputs hold the inputs' rows as they were, positions and all).
         */
        String notAdoptableAt(List<FileScanTask> apart, TableMetadata now) {
            if (now.spec().specId() != specId || now.currentSchemaId() != schemaId) {
                return "the table's spec or schema changed while it was packed apart";
            }
            Set<String> found = new HashSet<>();
            for (FileScanTask task : apart) {
                if (!task.deletes().isEmpty()) {
                    return "a delete landed on " + task.file().location() + " while it was packed apart";
                }
                found.add(task.file().location());
            }
            if (!found.equals(inputs)) {
                return (inputs.size() - found.size()) + " of its " + inputs.size()
                        + " input files left the table while it was packed apart";
            }
            return null;
        }

        /**
         * What a rebuild that installs this wrote: {@code written}, and this work's files standing in
         * for its inputs, as if streamed there; {@code map} takes in where their rows went.
         */
        RollingParquetWriter.Result standingIn(RollingParquetWriter.Result written, CompactionMap map) {
            map.absorb(this.map);
            List<DataFile> files = new ArrayList<>(written.files());
            files.addAll(outputs);
            return new RollingParquetWriter.Result(
                    List.copyOf(files), written.rowsIn() + rows, written.rowsOut() + rows);
        }
    }

    private final TableIdentifier identifier;
    private final TableMetadata base;
    private final List<RebuildPlan.Group> groups;
    private final RebuildSettings settings;
    private final BooleanSupplier stop;

    MajorRebuild(
            TableIdentifier identifier,
            TableMetadata base,
            List<RebuildPlan.Group> groups,
            RebuildSettings settings,
            BooleanSupplier stop) {
        this.identifier = identifier;
        this.base = base;
        this.groups = List.copyOf(groups);
        this.settings = settings;
        this.stop = stop;
    }

    TableIdentifier identifier() {
        return identifier;
    }

    /** The files it packs, by location. */
    Set<String> inputs() {
        Set<String> inputs = new HashSet<>();
        groups.forEach(
                group -> group.tasks().forEach(task -> inputs.add(task.file().location())));
        return inputs;
    }

    /**
     * Writes the groups on {@code catalog} (an instance of the table's catalog that stays open while
     * it runs); throws (and deletes what it wrote) on failure, or as soon as {@code stop} says so (the
     * JVM's exit) between two checks of the stream.
     */
    Written write(RebuildCatalog catalog) {
        Table live = catalog.loadTableUncached(identifier);
        // read as of the pinned version, which the table itself may have expired by now
        Table pinned = new org.apache.iceberg.BaseTable(
                new org.apache.iceberg.StaticTableOperations(base, live.io()), identifier.toString());
        RebuildJournal journal = RebuildJournal.forMajor(catalog.state(), identifier);
        journal.begin();
        CompactionMap map = new CompactionMap();
        RebuildPlan plan = new RebuildPlan(List.of(), List.of(), groups, false, 0);
        RowStreamer streamer = new RowStreamer(
                pinned,
                base,
                live,
                settings,
                Prune.NONE,
                map,
                StreamRaceWatch.stoppedBy(stop),
                (files, rows, bytes) -> {},
                location -> {
                    journal.fileStarted(location);
                    started.add(location);
                });
        try {
            RowStreamer.Streamed streamed = streamer.stream(plan);
            return new Written(
                    inputs(),
                    new ArrayList<>(streamed.written().files()),
                    map,
                    streamed.written().rowsOut(),
                    plan.rewrittenBytes(),
                    journal.scratch(),
                    List.copyOf(started),
                    base.spec().specId(),
                    base.currentSchemaId());
        } catch (RuntimeException e) {
            // nothing installed them: every file it started goes; if one cannot, the record stays
            // for recovery (the next start), which deletes what the table does not reference
            boolean all = true;
            for (String file : started) {
                try {
                    live.io().deleteFile(file);
                } catch (org.apache.iceberg.exceptions.NotFoundException never) {
                    // never written
                } catch (RuntimeException suppressed) {
                    all = false;
                    e.addSuppressed(suppressed);
                }
            }
            if (all) {
                journal.clear();
            } else {
                journal.release();
            }
            throw e;
        }
    }

    private final List<String> started = new ArrayList<>();
}
