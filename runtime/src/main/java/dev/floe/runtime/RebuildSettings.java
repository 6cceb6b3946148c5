package dev.floe.runtime;

import java.time.Duration;

/**
 * How a rebuild writes and retires files. Immutable; {@link #defaults()} is what floe uses unless
 * configured otherwise.
 *
 * @param rowGroupRows target rows per Parquet row group (default 131,072)
 * @param rowGroupMaxBytes the most a row group may buffer in memory before it is flushed, whatever
 *     its row count: this bounds a rebuild's memory (default 64 MiB)
 * @param targetFileBytes a file is closed and a new one started past this size (default 512 MiB)
 * @param zstdLevel ZSTD compression level (default 3)
 * @param reclaimGrace how long retired files stay on disk after a swap, for readers that resolved
 *     the old table just before it (default 10 minutes)
 * @param maxAttempts how many times a rebuild starts again after a non-append commit raced it
 *     (default 3)
 */
public record RebuildSettings(
    int rowGroupRows,
    long rowGroupMaxBytes,
    long targetFileBytes,
    int zstdLevel,
    Duration reclaimGrace,
    int maxAttempts) {

  public RebuildSettings {
    require(rowGroupRows > 0, "rowGroupRows must be positive: " + rowGroupRows);
    require(rowGroupMaxBytes > 0, "rowGroupMaxBytes must be positive: " + rowGroupMaxBytes);
    require(targetFileBytes > 0, "targetFileBytes must be positive: " + targetFileBytes);
    require(zstdLevel >= 1 && zstdLevel <= 22, "zstdLevel must be 1 to 22: " + zstdLevel);
    require(!reclaimGrace.isNegative(), "reclaimGrace must not be negative: " + reclaimGrace);
    require(maxAttempts > 0, "maxAttempts must be positive: " + maxAttempts);
  }

  public static RebuildSettings defaults() {
    return new RebuildSettings(131_072, 64L << 20, 512L << 20, 3, Duration.ofMinutes(10), 3);
  }

  public RebuildSettings withRowGroupRows(int rows) {
    return new RebuildSettings(rows, rowGroupMaxBytes, targetFileBytes, zstdLevel, reclaimGrace, maxAttempts);
  }

  public RebuildSettings withRowGroupMaxBytes(long bytes) {
    return new RebuildSettings(rowGroupRows, bytes, targetFileBytes, zstdLevel, reclaimGrace, maxAttempts);
  }

  public RebuildSettings withTargetFileBytes(long bytes) {
    return new RebuildSettings(rowGroupRows, rowGroupMaxBytes, bytes, zstdLevel, reclaimGrace, maxAttempts);
  }

  public RebuildSettings withZstdLevel(int level) {
    return new RebuildSettings(rowGroupRows, rowGroupMaxBytes, targetFileBytes, level, reclaimGrace, maxAttempts);
  }

  public RebuildSettings withReclaimGrace(Duration grace) {
    return new RebuildSettings(rowGroupRows, rowGroupMaxBytes, targetFileBytes, zstdLevel, grace, maxAttempts);
  }

  public RebuildSettings withMaxAttempts(int attempts) {
    return new RebuildSettings(rowGroupRows, rowGroupMaxBytes, targetFileBytes, zstdLevel, reclaimGrace, attempts);
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }
}
