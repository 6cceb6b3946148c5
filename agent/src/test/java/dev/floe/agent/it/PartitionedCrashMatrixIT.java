package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

/**
 * The crash matrix ({@link CrashMatrix}) on an incremental rebuild of a partitioned table: the
 * host's table is bucketed by id (two partitions), its rows large enough that the first rebuild's
 * files settle, and every crash point is reached in the second rebuild, which keeps those files as
 * they are and packs the commits since, per partition.
 */
class PartitionedCrashMatrixIT extends CrashMatrixIT {
    @Override
    List<String> points() {
        return List.of(
                "rebuild.FILE_STARTED@3", // the first rebuild starts two, one per partition
                "rebuild.SCRATCH_CREATED@2",
                "rebuild.SCRATCH_COMMITTED@2",
                "catalog.swap-uncommitted@2",
                "rebuild.SWAPPED@2",
                "reclaim.deleting@2");
    }

    @Override
    String extraConfig() {
        // settled at 3 KiB: the first rebuild's file of each partition (about 4 KiB), not a commit's
        return "floe.rebuild.target-file-bytes=4096\n";
    }

    @Override
    List<String> hostProperties() {
        return List.of("-Dcrash.partitioned=true", "-Dcrash.payload-chars=400");
    }

    @Override
    int hostFilesPerCommit() {
        return 2; // one per bucket
    }

    @Override
    void restartedWith(String point, Jvm.Run restarted) {
        if (point == null) {
            return; // a random kill may come before the first rebuild
        }
        assertThat(restarted.lines("floe: rebuilt db.events"))
                .as("a rebuild after the restart keeps settled files as they are:\n%s", restarted.output())
                .anyMatch(line -> line.matches(".*kept [1-9]\\d* files.*"));
    }

    @Override
    void crashedAt(String point, Jvm.Run crashed) {
        if (point.startsWith("rebuild.") || point.startsWith("catalog.")) {
            assertThat(crashed.lines("floe: rebuilt db.events"))
                    .as("one rebuild before the one that crashed:\n%s", crashed.output())
                    .hasSize(1);
        }
    }
}
