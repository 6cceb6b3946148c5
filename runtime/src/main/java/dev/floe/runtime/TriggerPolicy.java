package dev.floe.runtime;

import java.time.Duration;
import java.time.Instant;

/** Decides, after each commit, whether a table has grown enough to be rebuilt. */
final class TriggerPolicy {
  private final GuardSettings settings;

  TriggerPolicy(GuardSettings settings) {
    this.settings = settings;
  }

  /** Why {@code growth} calls for a rebuild, or null if it does not (yet). */
  String reason(TableGrowth growth, Instant lastRebuild, Instant now) {
    String reason = null;
    if (growth.snapshots() >= settings.triggerSnapshots()) {
      reason = growth.snapshots() + " snapshots >= " + settings.triggerSnapshots();
    } else if (growth.dataFiles() >= settings.triggerDataFiles()) {
      reason = growth.dataFiles() + " data files >= " + settings.triggerDataFiles();
    } else if (growth.metadataBytes() >= settings.triggerMetadataBytes()) {
      reason = growth.metadataBytes() + " metadata bytes >= " + settings.triggerMetadataBytes();
    }
    if (reason == null || growth.snapshots() <= 1) {
      return null; // one snapshot is what a rebuild produces: nothing left to collapse
    }
    if (lastRebuild != null && Duration.between(lastRebuild, now).compareTo(settings.minInterval()) < 0) {
      return null;
    }
    return reason;
  }
}
