package dev.floe.runtime;

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
    boolean jmx) {

  public GuardSettings {
    tables = List.copyOf(tables);
  }

  public static GuardSettings defaults() {
    return new GuardSettings(
        List.of(), 500, 1000, 16L << 20, Duration.ofMinutes(1), RebuildSettings.defaults(), () -> Prune.NONE, 512, true);
  }
}
