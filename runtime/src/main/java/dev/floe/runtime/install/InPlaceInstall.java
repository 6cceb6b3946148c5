package dev.floe.runtime.install;

import dev.floe.runtime.seam.RebuildJournal;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * Installs a rebuilt table in place, for catalogs other than floe's own (JDBC, REST, Hive, Glue,
 * Nessie, Hadoop): the rebuilt snapshot is committed to the live table through its own {@code
 * TableOperations.commit(base, rebuilt)}, so the catalog's compare-and-swap decides (JDBC: {@code
 * UPDATE ... WHERE metadata_location = ?}; REST: {@code assert-table-uuid} and {@code
 * assert-ref-snapshot-id}; Hive: its lock).
 *
 * <p>The rebuilt version is the live one with every snapshot removed and the rebuilt one added:
 * same table UUID, schema, spec, sort order, properties (plus {@code extraProperties}) and location,
 * exactly one snapshot on {@code main} (below it, the writers' marker snapshots, if any). It is
 * built from the live metadata with {@code TableMetadata.buildFrom}, not with {@code
 * ExpireSnapshots}, which keeps snapshots younger than five days, deletes files before the catalog
 * commit and refuses tables with {@code gc.enabled=false}. The removed snapshots' files are
 * reclaimed later, by reference, after the grace window.
 */
final class InPlaceInstall {
    private InPlaceInstall() {}

    /**
     * The rebuilt version of {@code base}, staged but not yet committed: its files are written (each
     * recorded in {@code journal} first), its metadata file is not.
     */
    static TableMetadata stage(
            TableOperations liveOps,
            TableMetadata base,
            Map<String, String> extraProperties,
            RebuiltFiles files,
            PrewrittenManifest prewritten,
            long pinned,
            int maxWriters,
            RebuildJournal journal) {
        TableMetadata stripped = TableMetadata.buildFrom(base)
                .removeSnapshots(base.snapshots())
                .setProperties(extraProperties)
                .build();
        StagedOperations staged = new StagedOperations(liveOps, stripped, journal::fileStarted);
        Table target = new BaseTable(staged, "floe-rebuild-of-" + base.uuid());
        RebuiltSnapshotCommit.commit(target, files, prewritten, base, pinned, maxWriters, journal);
        return staged.current();
    }

    /**
     * Commits {@code rebuilt} over {@code base} through the live table's own operations: throws the
     * catalog's {@code CommitFailedException} when the table moved since {@code base}, and nothing
     * is then installed.
     */
    static void commit(TableOperations liveOps, TableMetadata base, TableMetadata rebuilt) {
        liveOps.commit(base, rebuilt);
    }
}
