package dev.floe.agent.it;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.upkeep.Recovery;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Set;
import org.apache.iceberg.catalog.Catalog;

/**
 * The crash matrix ({@link CrashMatrix}) on floe's own {@code MapDbCatalog}: a rebuild writes a
 * scratch table and swaps it into the live name in one catalog transaction, with its reclaim job
 * and the journal's removal. Afterwards no scratch table is left either.
 */
class CrashMatrixIT extends CrashMatrix {
    @Override
    CrashCatalog catalog() {
        return CrashCatalog.MAPDB;
    }

    @Override
    List<String> points() {
        return List.of(
                "rebuild.FILE_STARTED",
                "rebuild.SCRATCH_CREATED",
                "rebuild.SCRATCH_COMMITTED",
                "catalog.swap-uncommitted",
                "rebuild.SWAPPED",
                "reclaim.deleting");
    }

    @Override
    boolean journalClearedBy(String point) {
        return point.equals("rebuild.SWAPPED") || point.equals("reclaim.deleting");
    }

    @Override
    int forgottenMetadataLeftAtMost() {
        return 0;
    }

    @Override
    Checked check(Path dir) {
        MapDbCatalog catalog = (MapDbCatalog) CrashCatalog.MAPDB.open(dir);
        return new Checked() {
            @Override
            public Catalog catalog() {
                return catalog;
            }

            @Override
            public Recovery.Result recoverLate() {
                return Recovery.run(catalog, Instant.now().plus(Duration.ofMinutes(1)));
            }

            @Override
            public NavigableMap<String, String> entries(String section) {
                return catalog.durableEntries(section);
            }

            /** Every metadata file since the table's last swap is in floe's commit log. */
            @Override
            public Set<String> alsoReferenced() {
                return localPaths(
                        new HashSet<>(catalog.commitLog(CrashHost.EVENTS).values()));
            }

            @Override
            public void close() throws Exception {
                catalog.close();
            }
        };
    }
}
