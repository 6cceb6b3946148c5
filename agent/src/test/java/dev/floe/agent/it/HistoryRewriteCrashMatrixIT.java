package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.samples.TableFacts;
import java.io.IOException;
import java.util.List;
import org.apache.iceberg.Table;

/**
 * The crash matrix ({@link CrashMatrix}) of a rebuild that rewrites the kept versions onto its files
 * ({@code floe.history.rewrite-after=0s}), in floe's own catalog: every crash point is reached in the
 * second rebuild, which writes those versions again over its own files (the first one's map composed
 * with its own) before the swap. Whatever the point, every version the table keeps reads back by id
 * as it was, and no file one references is gone.
 */
class HistoryRewriteCrashMatrixIT extends CrashMatrixIT {
    @Override
    List<String> points() {
        return List.of(
                "rebuild.HISTORY_REWRITTEN@2", // the rewritten versions' files written, nothing installed
                "rebuild.SCRATCH_COMMITTED@2",
                "catalog.swap-uncommitted@2",
                "rebuild.SWAPPED@2",
                "reclaim.deleting@2");
    }

    @Override
    String extraConfig() {
        return "floe.history.keep=1h\nfloe.history.rewrite-after=0s\n";
    }

    @Override
    int restartCommits() {
        return 1000; // its rebuilds also rewrite every kept version: they take longer to land
    }

    @Override
    void tableHolds(Table table) throws IOException {
        TableFacts.Versions versions = TableFacts.versions(table);
        assertThat(versions.rewritten())
                .as("versions rewritten onto a later layout")
                .isPositive();
        assertThat(versions.exact()).as("versions that read back as they were").isEqualTo(versions.versions());
    }
}
