package dev.floe.bench;

/** The sizes of one benchmark run: the full run, or {@code --quick} (a smoke test). */
final class Sizes {
    final boolean quick;
    final int[] growthCommits;
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

    Sizes(boolean quick) {
        this.quick = quick;
        growthCommits = quick ? new int[] {100, 200} : new int[] {500, 1000, 2000};
        seriesEvery = quick ? 10 : 20;
        throughputRows = quick ? 200_000 : 2_000_000;
        throughputFiles = quick ? 10 : 40;
        lowHeapBytes = quick ? 100L << 20 : (long) (5.25 * (128L << 20));
        lowHeapFiles = quick ? 20 : 200;
        stallRows = quick ? new long[] {100_000, 400_000} : new long[] {1_000_000, 5_000_000, 20_000_000};
        stallPreloadCommits = 20;
        stallWarmCommits = quick ? 60 : 100;
        stallAfter = quick ? 20 : 50;
        overheadPairs = quick ? 1 : 5;
        overheadCommits = quick ? 100 : 500;
        jdbcCommits = quick ? 200 : 2000;
    }
}
