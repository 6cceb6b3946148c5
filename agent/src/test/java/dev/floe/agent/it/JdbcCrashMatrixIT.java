package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.FloeStateFile;
import dev.floe.runtime.guard.SharedCatalog;
import dev.floe.runtime.seam.FloeState;
import dev.floe.runtime.seam.IcebergRebuildCatalog;
import dev.floe.runtime.upkeep.Recovery;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.NavigableMap;
import java.util.Set;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The crash matrix ({@link CrashMatrix}) on Iceberg's {@code JdbcCatalog} over a real SQLite file,
 * whose table the agent guards because {@code floe.tables} names it: a rebuild writes its files
 * into the live table's location, stages the rebuilt version in memory, records its reclaim job in
 * floe's state file and commits in place through the table's own operations, then clears its
 * journal. Afterwards the state file holds nothing of the catalog's.
 *
 * <p>The test opens the SQLite file only once the host has exited, and closes it after: on SQLite,
 * an instance of Iceberg 1.10's JdbcCatalog holds a read lock for its life (see {@link
 * CrashCatalog}).
 */
class JdbcCrashMatrixIT extends CrashMatrix {
    @Override
    CrashCatalog catalog() {
        return CrashCatalog.JDBC;
    }

    @Override
    List<String> points() {
        return List.of(
                "rebuild.SCRATCH_CREATED", // in place: the journal is begun, nothing written yet
                "rebuild.FILE_STARTED",
                "rebuild.SCRATCH_COMMITTED", // the rebuilt version staged: its manifests written
                "inplace.job-recorded", // the reclaim job recorded, the commit not made
                "inplace.committed", // the commit made, the journal not cleared
                "rebuild.SWAPPED",
                "rebuild.RECLAIM_RECORDED",
                "reclaim.deleting");
    }

    /**
     * Installed, its reclaim job not yet expanded: the restarted host's commits push the retired
     * metadata files out of the table's metadata log while the job waits for its grace window.
     */
    @Override
    List<String> pointsWithALongGrace() {
        return List.of("rebuild.SWAPPED");
    }

    @Override
    boolean journalClearedBy(String point) {
        return List.of("rebuild.SWAPPED", "rebuild.RECLAIM_RECORDED", "reclaim.deleting")
                .contains(point);
    }

    /**
     * Each of the two processes may end with almost a trim's worth noted in memory ({@code
     * floe.rebuild.metadata-versions}, 10: one per host commit) and a trim of as many running.
     */
    @Override
    int forgottenMetadataLeftAtMost() {
        return 2 * 2 * 10;
    }

    @Override
    Checked check(Path dir) {
        // the restarted host ended cleanly, closing its catalog: floe closed its state file cleanly too
        assertThat(CrashCatalog.stateFile(dir).resolveSibling("floe-state.db.journal"))
                .as("the state file's journal, left as after a crash")
                .doesNotExist();
        FloeStateFile file = FloeStateFile.open(CrashCatalog.stateFile(dir));
        JdbcCatalog catalog = (JdbcCatalog) CrashCatalog.JDBC.open(dir);
        // floe's records of this catalog, as the agent scopes them (name and uri)
        String key = SharedCatalog.of(catalog, CrashCatalog.NAME, CrashCatalog.JDBC.properties(dir), null)
                .key();
        FloeState state = FloeState.of(file).scoped(key);
        return new Checked() {
            @Override
            public Catalog catalog() {
                return catalog;
            }

            @Override
            public Recovery.Result recoverLate() {
                return Recovery.run(
                        new IcebergRebuildCatalog(catalog, key, state),
                        Instant.now().plus(Duration.ofMinutes(1)));
            }

            @Override
            public NavigableMap<String, String> entries(String section) {
                return state.entries(section);
            }

            @Override
            public Set<String> alsoReferenced() {
                return Set.of(); // a JDBC catalog keeps only the pointer to the current metadata file
            }

            @Override
            public void close() throws Exception {
                try (file) {
                    catalog.close();
                }
            }
        };
    }
}
