package dev.floe.runtime;

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
        RebuildSettings rebuild,
        Supplier<Prune> prune,
        int maxTrackedHandles,
        boolean jmx,
        Duration busyBackoff,
        Duration busyBackoffMax,
        Path stateFile) {

    /** The state file's default: in the process's working directory. */
    public static final String DEFAULT_STATE_FILE = "floe-state.db";

    public GuardSettings {
        tables = List.copyOf(tables);
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
        return new GuardSettings(
                tables,
                triggerSnapshots,
                triggerDataFiles,
                triggerMetadataBytes,
                minInterval,
                rebuild,
                prune,
                maxTrackedHandles,
                jmx,
                initial,
                max,
                stateFile);
    }

    public GuardSettings withStateFile(Path file) {
        return new GuardSettings(
                tables,
                triggerSnapshots,
                triggerDataFiles,
                triggerMetadataBytes,
                minInterval,
                rebuild,
                prune,
                maxTrackedHandles,
                jmx,
                busyBackoff,
                busyBackoffMax,
                file);
    }

    public static GuardSettings defaults() {
        return new GuardSettings(
                List.of(),
                500,
                1000,
                16L << 20,
                Duration.ofMinutes(1),
                RebuildSettings.defaults(),
                () -> Prune.NONE,
                512,
                true,
                Duration.ofMinutes(1),
                Duration.ofHours(1),
                Path.of(DEFAULT_STATE_FILE));
    }
}
