package dev.floe.runtime.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TriggerPolicyTest {
    final TriggerPolicy policy = new TriggerPolicy(new GuardSettings(
            List.of(),
            500,
            1000,
            16L << 20,
            Duration.ofMinutes(1),
            GuardSettings.DEFAULT_MERGE_MANIFESTS,
            RebuildSettings.defaults(),
            () -> Prune.NONE,
            8,
            false,
            Duration.ofMinutes(1),
            Duration.ofHours(1),
            java.nio.file.Path.of(GuardSettings.DEFAULT_STATE_FILE)));
    final Instant now = Instant.parse("2026-11-30T00:00:00Z");

    @Test
    void eachTriggerFiresOnItsOwn() {
        assertThat(policy.reason(new TableGrowth(500, 10, 1000), null, 0, now)).contains("500 snapshots");
        assertThat(policy.reason(new TableGrowth(20, 1000, 1000), null, 0, now)).contains("1000 data files");
        assertThat(policy.reason(new TableGrowth(20, 10, 16L << 20), null, 0, now))
                .contains("metadata bytes");
        assertThat(policy.reason(new TableGrowth(499, 999, (16L << 20) - 1), null, 0, now))
                .isNull();
    }

    @Test
    void minIntervalHoldsBackTheNextRebuild() {
        TableGrowth big = new TableGrowth(600, 10, 1000);
        assertThat(policy.reason(big, now.minusSeconds(30), 0, now)).isNull();
        assertThat(policy.reason(big, now.minusSeconds(61), 0, now)).isNotNull();
    }

    @Test
    void aTableLargeEvenWhenRebuiltIsNotRewrittenAgainAndAgain() {
        // the last rebuild left 1,500 files of the target size; 20 small appends since
        assertThat(policy.reason(new TableGrowth(21, 1520, 1000), now.minusSeconds(3600), 1500, now))
                .isNull();
        assertThat(policy.reason(new TableGrowth(21, 2500, 1000), now.minusSeconds(3600), 1500, now))
                .contains("1000 data files added");
    }

    @Test
    void aSingleSnapshotIsNeverRebuilt() {
        assertThat(policy.reason(new TableGrowth(1, 5000, 1L << 30), null, 0, now))
                .isNull();
    }
}
