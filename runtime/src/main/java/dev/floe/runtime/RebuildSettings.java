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
 * @param metadataVersions how many previous metadata files a rebuilt table keeps as the host goes on
 *     committing ({@code write.metadata.previous-versions-max}, unless the table sets it itself); a
 *     guard deletes the ones its metadata log forgets ({@link MetadataHistoryTrim}). 0 leaves the
 *     table's own setting and deletes nothing (default 10)
 * @param writerMarkers how many exactly-once writers of one kind (Flink committers, Spark streaming
 *     queries) a rebuild keeps the progress markers of; each beyond the first keeps one empty
 *     marker snapshot below the rebuilt one ({@link WriterMarkers}; default 8)
 */
public record RebuildSettings(
        int rowGroupRows,
        long rowGroupMaxBytes,
        long targetFileBytes,
        int zstdLevel,
        Duration reclaimGrace,
        int maxAttempts,
        int metadataVersions,
        int writerMarkers) {

    public RebuildSettings {
        require(rowGroupRows > 0, "rowGroupRows must be positive: " + rowGroupRows);
        require(rowGroupMaxBytes > 0, "rowGroupMaxBytes must be positive: " + rowGroupMaxBytes);
        require(targetFileBytes > 0, "targetFileBytes must be positive: " + targetFileBytes);
        require(zstdLevel >= 1 && zstdLevel <= 22, "zstdLevel must be 1 to 22: " + zstdLevel);
        require(!reclaimGrace.isNegative(), "reclaimGrace must not be negative: " + reclaimGrace);
        require(maxAttempts > 0, "maxAttempts must be positive: " + maxAttempts);
        require(metadataVersions >= 0, "metadataVersions must not be negative: " + metadataVersions);
        require(writerMarkers > 0, "writerMarkers must be positive: " + writerMarkers);
    }

    public static RebuildSettings defaults() {
        return new RebuildSettings(131_072, 64L << 20, 512L << 20, 3, Duration.ofMinutes(10), 3, 10, 8);
    }

    public RebuildSettings withRowGroupRows(int rows) {
        return new RebuildSettings(
                rows,
                rowGroupMaxBytes,
                targetFileBytes,
                zstdLevel,
                reclaimGrace,
                maxAttempts,
                metadataVersions,
                writerMarkers);
    }

    public RebuildSettings withRowGroupMaxBytes(long bytes) {
        return new RebuildSettings(
                rowGroupRows,
                bytes,
                targetFileBytes,
                zstdLevel,
                reclaimGrace,
                maxAttempts,
                metadataVersions,
                writerMarkers);
    }

    public RebuildSettings withTargetFileBytes(long bytes) {
        return new RebuildSettings(
                rowGroupRows,
                rowGroupMaxBytes,
                bytes,
                zstdLevel,
                reclaimGrace,
                maxAttempts,
                metadataVersions,
                writerMarkers);
    }

    public RebuildSettings withZstdLevel(int level) {
        return new RebuildSettings(
                rowGroupRows,
                rowGroupMaxBytes,
                targetFileBytes,
                level,
                reclaimGrace,
                maxAttempts,
                metadataVersions,
                writerMarkers);
    }

    public RebuildSettings withReclaimGrace(Duration grace) {
        return new RebuildSettings(
                rowGroupRows,
                rowGroupMaxBytes,
                targetFileBytes,
                zstdLevel,
                grace,
                maxAttempts,
                metadataVersions,
                writerMarkers);
    }

    public RebuildSettings withMaxAttempts(int attempts) {
        return new RebuildSettings(
                rowGroupRows,
                rowGroupMaxBytes,
                targetFileBytes,
                zstdLevel,
                reclaimGrace,
                attempts,
                metadataVersions,
                writerMarkers);
    }

    public RebuildSettings withMetadataVersions(int versions) {
        return new RebuildSettings(
                rowGroupRows,
                rowGroupMaxBytes,
                targetFileBytes,
                zstdLevel,
                reclaimGrace,
                maxAttempts,
                versions,
                writerMarkers);
    }

    public RebuildSettings withWriterMarkers(int writers) {
        return new RebuildSettings(
                rowGroupRows,
                rowGroupMaxBytes,
                targetFileBytes,
                zstdLevel,
                reclaimGrace,
                maxAttempts,
                metadataVersions,
                writers);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
