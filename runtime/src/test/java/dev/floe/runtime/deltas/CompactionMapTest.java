package dev.floe.runtime.deltas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The compaction map records runs, not rows, and translates positions by them. */
class CompactionMapTest {

    @Test
    void contiguousRowsOfOneSourceIntoOneTargetAreOneRun() {
        CompactionMap map = new CompactionMap();
        map.rewriting("a");
        for (long pos = 0; pos < 1_000; pos++) {
            map.placed("a", pos, "t", 500 + pos);
        }

        assertThat(map.runCount()).isEqualTo(1);
        assertThat(map.runsOf("a")).containsExactly(new CompactionMap.Run(0, "t", 500, 1_000));
        assertThat(map.target("a", 0)).isEqualTo(new CompactionMap.Position("t", 500));
        assertThat(map.target("a", 999)).isEqualTo(new CompactionMap.Position("t", 1_499));
        assertThat(map.target("a", 1_000)).isNull();
    }

    @Test
    void aFileCopiedWholeIsOneRunAndEachRowFindsItsPlace() {
        CompactionMap map = new CompactionMap();
        map.copied("a", 0, "t", 0);
        map.copied("b", 3_000_000, "t", 600);

        assertThat(map.isMapped("a")).isTrue();
        assertThat(map.runsOf("a")).isEmpty();
        assertThat(map.runsOf("b")).containsExactly(new CompactionMap.Run(0, "t", 600, 3_000_000));
        assertThat(map.target("b", 0)).isEqualTo(new CompactionMap.Position("t", 600));
        assertThat(map.target("b", 2_999_999)).isEqualTo(new CompactionMap.Position("t", 3_000_599));
        assertThat(map.target("b", 3_000_000)).isNull();
    }

    @Test
    void aDroppedRowAndARolledTargetCutRuns() {
        CompactionMap map = new CompactionMap();
        map.rewriting("a");
        map.placed("a", 0, "t1", 0);
        map.placed("a", 1, "t1", 1);
        // row 2 deleted: dropped by the rebuild
        map.placed("a", 3, "t1", 2);
        map.placed("a", 4, "t1", 3);
        // the target rolled
        map.placed("a", 5, "t2", 0);
        map.placed("a", 6, "t2", 1);

        assertThat(map.runsOf("a"))
                .containsExactly(
                        new CompactionMap.Run(0, "t1", 0, 2),
                        new CompactionMap.Run(3, "t1", 2, 2),
                        new CompactionMap.Run(5, "t2", 0, 2));
        assertThat(map.target("a", 2)).as("a dropped row is nowhere").isNull();
        assertThat(map.target("a", 4)).isEqualTo(new CompactionMap.Position("t1", 3));
        assertThat(map.target("a", 6)).isEqualTo(new CompactionMap.Position("t2", 1));
    }

    @Test
    void sourcesInterleavedIntoOneTargetKeepTheirOwnRuns() {
        CompactionMap map = new CompactionMap();
        long target = 0;
        for (long pos = 0; pos < 100; pos++) {
            map.placed("a", pos, "t", target++);
        }
        for (long pos = 0; pos < 50; pos++) {
            map.placed("b", pos, "t", target++);
        }

        assertThat(map.target("b", 0)).isEqualTo(new CompactionMap.Position("t", 100));
        assertThat(map.target("a", 99)).isEqualTo(new CompactionMap.Position("t", 99));
        assertThat(map.runCount()).isEqualTo(2);
        assertThat(map.rewritten()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void aSourceWhoseEveryRowWasDroppedIsRewrittenWithNoRun() {
        CompactionMap map = new CompactionMap();
        map.rewriting("gone");

        assertThat(map.isMapped("gone")).isTrue();
        assertThat(map.runsOf("gone")).isEmpty();
        assertThat(map.target("gone", 0)).isNull();
    }

    @Test
    void keptAndUnmappedFilesAreTold() {
        CompactionMap map = new CompactionMap();
        map.keep("k");
        map.rewritingUnmapped("r");

        assertThat(map.isKept("k")).isTrue();
        assertThat(map.isMapped("k")).isFalse();
        assertThat(map.isUnmapped("r")).isTrue();
        assertThat(map.rewritten()).containsExactly("r");
    }

    @Test
    void rowsOutOfPositionOrderAreRefused() {
        CompactionMap map = new CompactionMap();
        map.placed("a", 5, "t", 0);

        assertThatThrownBy(() -> map.placed("a", 3, "t", 1)).hasMessageContaining("position order");
    }

    @Test
    void manyRunsGrowWithoutLosingAny() {
        CompactionMap map = new CompactionMap();
        for (long pos = 0; pos < 20_000; pos += 2) { // every other row dropped: one run per row
            map.placed("a", pos, "t", pos / 2);
        }

        assertThat(map.runCount()).isEqualTo(10_000);
        assertThat(map.target("a", 19_998)).isEqualTo(new CompactionMap.Position("t", 9_999));
        assertThat(map.target("a", 19_999)).isNull();
    }
}
