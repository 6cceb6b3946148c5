package dev.floe.bench;

/**
 * The sizes of one benchmark run: the full run, or {@code --quick}, every part at its smallest size
 * that still runs each of its steps (a guarded run still rebuilds, a series still has two rebuilds):
 * a smoke test of the command, which CI runs ({@code BenchSmokeTest}), not a measure.
 */
final class Sizes {
    final boolean quick;
    final int[] growthCommits;
    /** The guarded growth and jdbc runs' floe.trigger.snapshots; 0: samples/floe.properties' own. */
    final int growthTrigger;

    final int heapProbeEvery;
    final int seriesEvery;
    final long throughputRows;
    final int throughputFiles;
    final long lowHeapBytes;
    final int lowHeapFiles;
    final long[] stallRows;
    final int stallPreloadCommits;
    final int stallWarmCommits;
    final int stallAfter;
    final int overheadPairs;
    final int overheadCommits;
    final int jdbcCommits;
    final int incrementalCommits;
    final int incrementalRows;
    final int incrementalEvery;
    final String incrementalTarget;
    final long[] incrementalTables;
    final int incrementalAppendCommits;
    final int upsertCommits;
    final int upsertTrigger;
    final int upsertScanSeconds;
    final int historyCommits;
    final int rewriteCommits;
    final long rewriteWindowMs;
    final long rewriteAfterMs;
    final long rewritePaceMs;
    final int rewriteTrigger;
    final long promotionRows;
    final String promotionSettled;
    final int promotionRowGroupRows;
    final int[] keepUpCommits;
    final int keepUpRows;
    final int keepUpTrigger;

    Sizes(boolean quick) {
        this.quick = quick;
        growthCommits = quick ? new int[] {30, 60} : new int[] {500, 1000, 2000};
        growthTrigger = quick ? 25 : 0;
        heapProbeEvery = quick ? 30 : 100;
        seriesEvery = quick ? 10 : 20;
        throughputRows = quick ? 50_000 : 2_000_000;
        throughputFiles = quick ? 5 : 40;
        lowHeapBytes = quick ? 20L << 20 : (long) (5.25 * (128L << 20));
        lowHeapFiles = quick ? 5 : 200;
        stallRows = quick ? new long[] {50_000} : new long[] {1_000_000, 5_000_000, 20_000_000};
        stallPreloadCommits = quick ? 5 : 20;
        stallWarmCommits = quick ? 30 : 100;
        stallAfter = quick ? 10 : 50;
        overheadPairs = quick ? 1 : 5;
        overheadCommits = quick ? 40 : 500;
        jdbcCommits = quick ? 60 : 2000;
        incrementalCommits = quick ? 100 : 6_000;
        incrementalRows = quick ? 100 : 1_000;
        incrementalEvery = quick ? 20 : 80;
        incrementalTarget = quick ? "1MiB" : "8MiB";
        incrementalTables = quick ? new long[] {20_000, 50_000} : new long[] {1_000_000, 20_000_000};
        incrementalAppendCommits = quick ? 10 : 100;
        upsertCommits = quick ? 60 : 2_000;
        upsertTrigger = quick ? 20 : 100;
        upsertScanSeconds = quick ? 20 : 120;
        historyCommits = quick ? 60 : 2_000;
        rewriteCommits = quick ? 60 : 2_000;
        rewriteWindowMs = quick ? 6_000 : 60_000;
        rewriteAfterMs = quick ? 1_000 : 12_000;
        rewritePaceMs = quick ? 40 : 40;
        rewriteTrigger = quick ? 20 : 200;
        promotionRows = quick ? 400_000 : 8_000_000;
        promotionSettled = quick ? "1MiB" : "16MiB";
        promotionRowGroupRows = quick ? 10_000 : 131_072; // the full run's: floe's default
        keepUpCommits = quick ? new int[] {40} : new int[] {300, 3_000};
        keepUpRows = quick ? 1_000 : 10_000;
        keepUpTrigger = quick ? 5 : 15;
    }
}
