package dev.floe.agent.it;

import java.util.List;

/**
 * The crash matrix ({@link CrashMatrix}) on an upsert stream: from its second commit on, every host
 * commit is a row delta that adds its new rows and upserts the two ids before them (an equality
 * delete of their earlier version, and the same rows again), so the rebuilds rebase equality
 * deletes that land while they run, and every acknowledged id must still be there exactly once.
 */
class UpsertCrashMatrixIT extends CrashMatrixIT {
    @Override
    List<String> hostProperties() {
        return List.of("-Dcrash.upserts=2");
    }

    @Override
    int hostManifestsPerCommit() {
        return 2;
    }

    @Override
    int hostFilesPerCommit() {
        return 3; // the new rows, the upserted rows, the equality delete
    }
}
