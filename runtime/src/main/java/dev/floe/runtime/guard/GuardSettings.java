package dev.floe.runtime.guard;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the guard watches and when it rebuilds.
 *
 * @param tables globs of {@code namespace.table} to guard; empty means every table of a
 *     MapDbCatalog
 * @param triggerSnapshots rebuild when a table has this many snapshots
 * @param triggerDataFiles rebuild when its current snapshot has this many data files
 * @param triggerMetadataBytes rebuild when its current metadata file is this large
 * @param minInterval the least time between two rebuilds of one table
 * @param mergeManifests between rebuilds, merge a table's small data manifests (one per fast
 *     append) into one once its current snapshot has this many ({@link ManifestMerge}); 0: never
 * @param rebuild how rebuilds write and retire files
 * @param prune the prune each rebuild applies (a new instance per rebuild)
 * @param maxTrackedHandles host table handles tracked for reload after a swap
 * @param jmx whether to register MBeans
 * @param busyBackoff how long a table whose rebuild ended busy (every attempt raced by commits other
 *     than appends) waits before it is tried again; doubled for each busy rebuild in a row
 * @param busyBackoffMax the longest that wait grows to
 * @param stateFile floe's state file: its records for the tables of shared catalogs (one process
 *     holds it)
 */
public record GuardSettings(
        List<String> tables,
        long triggerSnapshots,
        long triggerDataFiles,
        long triggerMetadataBytes,
        Duration minInterval,
        int mergeManifests,
        RebuildSettings rebuild,
        Supplier<Prune> prune,
        int maxTrackedHandles,
        boolean jmx,
        Duration busyBackoff,
        Duration busyBackoffMax,
        Path stateFile) {

    /** The state file's default: in the process's working directory. */
    public static final String DEFAULT_STATE_FILE = "floe-state.db";

    /** The small data manifests a table gathers between rebuilds before floe merges them. */
    public static final int DEFAULT_MERGE_MANIFESTS = 100;

    public GuardSettings {
        tables = List.copyOf(tables);
        if (mergeManifests < 0) {
            throw new IllegalArgumentException("mergeManifests must not be negative: " + mergeManifests);
        }
        if (busyBackoff.isNegative() || busyBackoffMax.compareTo(busyBackoff) < 0) {
            throw new IllegalArgumentException("busyBackoff must not be negative nor above busyBackoffMax: "
                    + busyBackoff + ", " + busyBackoffMax);
        }
    }

    /** The wait after the {@code streak}-th busy rebuild in a row (1 or more). */
    public Duration busyWait(int streak) {
        Duration wait = busyBackoff;
        for (int i = 1; i < streak && wait.compareTo(busyBackoffMax) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(busyBackoffMax) > 0 ? busyBackoffMax : wait;
    }

    public GuardSettings withBusyBackoff(Duration initial, Duration max) {
        return with(mergeManifests, initial, max, stateFile);
    }

    public GuardSettings withMergeManifests(int manifests) {
        return with(manifests, busyBackoff, busyBackoffMax, stateFile);
    }

    public GuardSettings withStateFile(Path file) {
        return with(mergeManifests, busyBackoff, busyBackoffMax, file);
    }

    /** A copy with the settings the withers change; every other one as it is. */
    private GuardSettings with(int manifests, Duration initial, Duration max, Path file) {
        return new GuardSettings(
                tables,
                triggerSnapshots,
                triggerDataFiles,
                triggerMetadataBytes,
                minInterval,
                manifests,
                rebuild,
                prune,
                maxTrackedHandles,
                jmx,
                initial,
                max,
                file);
    }

    public static GuardSettings defaults() {
        return new GuardSettings(
                List.of(),
                500,
                1000,
                16L << 20,
                Duration.ofMinutes(1),
                DEFAULT_MERGE_MANIFESTS,
                RebuildSettings.defaults(),
                () -> Prune.NONE,
                512,
                true,
                Duration.ofMinutes(1),
                Duration.ofHours(1),
                Path.of(DEFAULT_STATE_FILE));
    }
}
