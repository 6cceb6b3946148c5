package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The size tiers bound how often a byte is rewritten: simulated over hundreds of rebuilds of one
 * growing partition, each bringing the same amount of new data in small commits.
 */
class SizeTiersTest {
    static final long MIB = 1L << 20;
    static final long TARGET = 512 * MIB;
    static final long SETTLED = SizeTiers.settledBytes(TARGET);

    /** Bytes written by the host and by the rebuilds, and the files left after each rebuild. */
    record Life(long hostBytes, long rebuiltBytes, int mostSmallFiles, int filesAtEnd) {
        double amplification() {
            return (double) (hostBytes + rebuiltBytes) / hostBytes;
        }
    }

    /** {@code rebuilds} rebuilds, each after {@code commits} host files of {@code commitBytes}. */
    static Life simulate(int rebuilds, int commits, long commitBytes, int fanIn) {
        List<Long> files = new ArrayList<>();
        long host = 0;
        long rebuilt = 0;
        int mostSmall = 0;
        for (int r = 0; r < rebuilds; r++) {
            for (int c = 0; c < commits; c++) {
                files.add(commitBytes);
                host += commitBytes;
            }
            List<Long> small = files.stream().filter(size -> size < SETTLED).toList();
            List<Long> chosen = SizeTiers.choose(small, Long::longValue, SETTLED, fanIn);
            long bytes = chosen.stream().mapToLong(Long::longValue).sum();
            for (Long file : chosen) {
                files.remove(file);
            }
            // what the rolling writer makes of them: target-sized files and the rest
            for (long left = bytes; left > 0; left -= TARGET) {
                files.add(Math.min(left, TARGET));
            }
            rebuilt += bytes;
            mostSmall = Math.max(mostSmall, (int)
                    files.stream().filter(size -> size < SETTLED).count());
        }
        return new Life(host, rebuilt, mostSmall, files.size());
    }

    @Test
    void aSettledFileIsNeverChosenAndALoneSmallOneNeither() {
        assertThat(SizeTiers.choose(List.of(SETTLED - 1), Long::longValue, SETTLED, 8))
                .isEmpty();
        assertThat(SizeTiers.choose(List.of(40 * MIB, 1 * MIB), Long::longValue, SETTLED, 8))
                .as("a small file beside a much larger one waits for its tier to fill")
                .isEmpty();
    }

    @Test
    void fragmentsArePackedWheneverThereAreTwo() {
        assertThat(SizeTiers.choose(List.of(1_000L, 2_000L), Long::longValue, SETTLED, 8))
                .containsExactlyInAnyOrder(1_000L, 2_000L);
    }

    @Test
    void aTierIsPackedWithEverySmallerOneOnceItWouldLeaveItsTier() {
        long half = SETTLED / 8 / 2; // tier 1 is [settled/64, settled/8): half its upper bound
        List<Long> files = new ArrayList<>(List.of(half, 5_000L));
        assertThat(SizeTiers.choose(files, Long::longValue, SETTLED, 8))
                .as("one file of half the bound and a lone fragment: nothing leaves its tier yet")
                .isEmpty();
        files.add(half);
        assertThat(SizeTiers.choose(files, Long::longValue, SETTLED, 8))
                .as("two halves reach the bound: packed, with the fragment")
                .containsExactlyInAnyOrder(half, half, 5_000L);
        files.add(SETTLED / 2);
        assertThat(SizeTiers.choose(files, Long::longValue, SETTLED, 8))
                .as("a larger tier that would not fill stays as it is")
                .containsExactlyInAnyOrder(half, half, 5_000L);
    }

    @Test
    void eachByteIsRewrittenABoundedNumberOfTimesAndTheBoundDoesNotGrowWithTheTable() {
        // 300 rebuilds of 500 commits of 40 KiB: 20 MB per rebuild, 6 GB in all
        Life hundred = simulate(100, 500, 40 << 10, 8);
        Life threeHundred = simulate(300, 500, 40 << 10, 8);
        assertThat(threeHundred.amplification())
                .as("bytes written per byte ingested")
                .isLessThan(4.5)
                .isCloseTo(hundred.amplification(), org.assertj.core.data.Offset.offset(0.5));
        assertThat(threeHundred.mostSmallFiles())
                .as("small files a partition keeps")
                .isLessThan(3 * 8);
        assertThat(threeHundred.filesAtEnd()).isLessThan(40);
    }

    @Test
    void aRebuildWhoseNewDataIsOverAnEighthOfASettledFileRewritesEachByteAtMostTwice() {
        Life life = simulate(200, 500, (SETTLED / 6) / 500, 8);
        assertThat(life.amplification()).isLessThanOrEqualTo(3.0);
    }
}
