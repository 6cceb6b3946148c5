package dev.floe.runtime.rebuild;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Which small files of one partition a rebuild packs together, so that each byte is rewritten a
 * bounded number of times over the table's life instead of at every rebuild.
 *
 * <p>A file of at least {@code settled} bytes is settled and never chosen here. The smaller ones
 * fall into tiers by size: tier 0 holds {@code [settled / fanIn, settled)}, tier 1 the next
 * {@code fanIn} times smaller, and so on down to {@value #SMALLEST_BOUND} bytes; the last tier, of
 * fragments, holds everything below. Walking from the smallest tier up, the files so far are packed
 * once together they would leave their tier (their bytes reach the tier's upper bound), and
 * fragments whenever there are two: the chosen set is every file of the largest tier where that
 * holds and of every smaller one. Packing fragments again at each rebuild costs at most a few
 * fragment tiers' bytes per partition, however large the table; it keeps a table of tiny commits at
 * one file. So a packed file is at least one tier above every file it was
 * packed from, a byte is rewritten at most once per tier on its way to a settled file, and a
 * partition keeps fewer than {@code fanIn} files per tier. A lone file is never rewritten alone, and
 * a rebuilt file smaller than a target waits in its tier until enough data joins it.
 *
 * <p>This is Iceberg's bin-pack planner (a file within 0.75 of the target is left alone) with
 * size-tiered runs below the target, as Amoro gathers fragments and Paimon merges sorted runs by
 * size ratio.
 */
final class SizeTiers {
    /** The smallest upper bound a tier gets: below it, every file is in the last tier. */
    static final long SMALLEST_BOUND = 64L << 10;

    private SizeTiers() {}

    /** The settled size of a target: 3/4 of it, as Iceberg's bin-pack planner's minimum. */
    static long settledBytes(long targetFileBytes) {
        return Math.max(1, targetFileBytes / 4 * 3);
    }

    /** The tier of a file of {@code bytes} below {@code settled}: 0 the largest. */
    static int tierOf(long bytes, long settled, int fanIn) {
        int tier = 0;
        for (long lower = settled / fanIn; bytes < lower && lower >= SMALLEST_BOUND; lower /= fanIn) {
            tier += 1;
        }
        return tier;
    }

    /** Whether {@code tier} is the last, which holds every file below {@link #SMALLEST_BOUND}-ish. */
    static boolean isFragments(int tier, long settled, int fanIn) {
        return upperBound(tier, settled, fanIn) / fanIn < SMALLEST_BOUND;
    }

    /**
     * The bytes below which a file of a table rebuilt with {@code settings} is a fragment: packed
     * again at every rebuild (the upper bound of the last tier).
     */
    static long fragmentBytes(dev.floe.runtime.RebuildSettings settings) {
        long settled = settledBytes(settings.targetFileBytes());
        int tier = 0;
        while (!isFragments(tier, settled, settings.fanIn())) {
            tier += 1;
        }
        return upperBound(tier, settled, settings.fanIn());
    }

    /** The upper bound of {@code tier}: packed files whose bytes reach it leave the tier. */
    static long upperBound(int tier, long settled, int fanIn) {
        long bound = settled;
        for (int i = 0; i < tier; i++) {
            bound /= fanIn;
        }
        return bound;
    }

    /**
     * The files of {@code small} (all below {@code settled}) to pack into new files, or none.
     *
     * @param size the bytes of a file
     */
    static <F> List<F> choose(List<F> small, ToLongFunction<F> size, long settled, int fanIn) {
        if (small.size() < 2) {
            return List.of();
        }
        List<F> bySize = new ArrayList<>(small);
        bySize.sort(Comparator.comparingLong(size).reversed());
        int deepest = tierOf(size.applyAsLong(bySize.get(bySize.size() - 1)), settled, fanIn);
        // bytes of tiers deeper than or equal to each tier, walking up from the deepest
        long below = 0;
        int end = bySize.size(); // files [end, size) are of the tiers walked so far
        int chosenEnd = -1;
        for (int tier = deepest; tier >= 0; tier--) {
            while (end > 0 && tierOf(size.applyAsLong(bySize.get(end - 1)), settled, fanIn) >= tier) {
                end -= 1;
                below += size.applyAsLong(bySize.get(end));
            }
            boolean fragments = tier == deepest && isFragments(tier, settled, fanIn);
            if (bySize.size() - end >= 2 && (fragments || below >= upperBound(tier, settled, fanIn))) {
                chosenEnd = end;
            }
        }
        return chosenEnd < 0 ? List.of() : List.copyOf(bySize.subList(chosenEnd, bySize.size()));
    }
}
