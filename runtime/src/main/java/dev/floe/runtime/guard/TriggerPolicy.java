package dev.floe.runtime.guard;

import java.time.Duration;
import java.time.Instant;

/** Decides, after each commit, whether a table has grown enough to be rebuilt. */
final class TriggerPolicy {
    private final GuardSettings settings;

    TriggerPolicy(GuardSettings settings) {
        this.settings = settings;
    }

    /**
     * Why {@code growth} calls for a rebuild, or null if it does not (yet).
     *
     * @param filesAfterLastRebuild data files the last rebuild left (0 if none): the data-file
     *     trigger counts files added since, so a table that is large even when rebuilt (many files of
     *     the target size) is not rewritten again and again
     */
    String reason(TableGrowth growth, Instant lastRebuild, long filesAfterLastRebuild, Instant now) {
        String reason = null;
        long newFiles = growth.dataFiles() - filesAfterLastRebuild;
        if (growth.snapshots() >= settings.triggerSnapshots()) {
            reason = growth.snapshots() + " snapshots >= " + settings.triggerSnapshots();
        } else if (newFiles >= settings.triggerDataFiles()) {
            reason = newFiles + " data files added since the last rebuild >= " + settings.triggerDataFiles();
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
