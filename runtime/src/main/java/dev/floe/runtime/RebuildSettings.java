package dev.floe.runtime;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
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
 * @param fanIn the size ratio between two tiers of small files, and so about how many files of one
 *     tier a partition gathers before they are packed into one of the next ({@link SizeTiers};
 *     default 8)
 * @param deleteRatio a settled file is rewritten, its deletes applied, once this share of its rows
 *     or more is deleted (default 0.3); a file any equality delete applies to is always rewritten
 * @param fullEvery every how many rebuilds of a table one rewrites it whole, applying every delete
 *     ({@link RebuildPlanner}); 0 never, 1 every rebuild (default 0)
 * @param historyKeep how far back the snapshots of {@code main} a rebuild keeps below the rebuilt
 *     one, for incremental readers and time travel; zero keeps none (default 1 hour)
 * @param historyKeepSnapshots the most snapshots a rebuild keeps, whatever else asks for more
 *     (default 2,000)
 * @param historyRewriteAfter how old a kept snapshot must be before a rebuild rewrites it onto the
 *     rebuilt layout, its small files then reclaimed (younger ones keep their layout for incremental
 *     readers); null never rewrites (the default: a rewrite costs tens of milliseconds a snapshot
 *     today, so a window of thousands would slow every rebuild)
 * @param copyRowGroups whether files whose row groups are already large are packed by copying
 *     their row groups byte for byte rather than by re-encoding every row ({@code RowGroupCopy};
 *     default true)
 * @param majorBytes a group of files to pack of at least this many bytes (a promotion of settled
 *     tiers) is written apart, on the guard's second thread, while the rebuilds at the trigger go on
 *     keeping its files as they are; the next rebuild installs it ({@code Promotions}). 0 packs every
 *     group in the rebuild itself (default 32 MiB)
 */
public record RebuildSettings(
        int rowGroupRows,
        long rowGroupMaxBytes,
        long targetFileBytes,
        int zstdLevel,
        Duration reclaimGrace,
        int maxAttempts,
        int metadataVersions,
        int writerMarkers,
        int fanIn,
        double deleteRatio,
        int fullEvery,
        Duration historyKeep,
        int historyKeepSnapshots,
        Duration historyRewriteAfter,
        boolean copyRowGroups,
        long majorBytes) {

    public RebuildSettings {
        require(rowGroupRows > 0, "rowGroupRows must be positive: " + rowGroupRows);
        require(rowGroupMaxBytes > 0, "rowGroupMaxBytes must be positive: " + rowGroupMaxBytes);
        require(targetFileBytes > 0, "targetFileBytes must be positive: " + targetFileBytes);
        require(zstdLevel >= 1 && zstdLevel <= 22, "zstdLevel must be 1 to 22: " + zstdLevel);
        require(!reclaimGrace.isNegative(), "reclaimGrace must not be negative: " + reclaimGrace);
        require(maxAttempts > 0, "maxAttempts must be positive: " + maxAttempts);
        require(metadataVersions >= 0, "metadataVersions must not be negative: " + metadataVersions);
        require(writerMarkers > 0, "writerMarkers must be positive: " + writerMarkers);
        require(fanIn >= 2, "fanIn must be 2 or more: " + fanIn);
        require(deleteRatio > 0 && deleteRatio <= 1, "deleteRatio must be above 0 and at most 1: " + deleteRatio);
        require(fullEvery >= 0, "fullEvery must not be negative: " + fullEvery);
        require(!historyKeep.isNegative(), "historyKeep must not be negative: " + historyKeep);
        require(historyKeepSnapshots > 0, "historyKeepSnapshots must be positive: " + historyKeepSnapshots);
        require(
                historyRewriteAfter == null || !historyRewriteAfter.isNegative(),
                "historyRewriteAfter must not be negative: " + historyRewriteAfter);
        require(majorBytes >= 0, "majorBytes must not be negative: " + majorBytes);
    }

    public static RebuildSettings defaults() {
        return new RebuildSettings(
                131_072,
                64L << 20,
                512L << 20,
                3,
                Duration.ofMinutes(10),
                3,
                10,
                8,
                8,
                0.3,
                0,
                Duration.ofHours(1),
                2000,
                null,
                true,
                32L << 20);
    }

    /**
     * These settings with the values {@code change} sets on a copy of them, for example {@code
     * defaults().with(s -> s.reclaimGrace = Duration.ZERO)}; validated like any others.
     */
    public RebuildSettings with(java.util.function.Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.settings();
    }

    /**
     * A mutable copy of the settings, for {@link #with}: one public field per setting, named as the
     * record's component, copied to and from the record by those names.
     */
    public static final class Copy {
        private static final RecordComponent[] COMPONENTS = RebuildSettings.class.getRecordComponents();

        public int rowGroupRows;
        public long rowGroupMaxBytes;
        public long targetFileBytes;
        public int zstdLevel;
        public Duration reclaimGrace;
        public int maxAttempts;
        public int metadataVersions;
        public int writerMarkers;
        public int fanIn;
        public double deleteRatio;
        public int fullEvery;
        public Duration historyKeep;
        public int historyKeepSnapshots;
        public Duration historyRewriteAfter;
        public boolean copyRowGroups;
        public long majorBytes;

        private Copy(RebuildSettings from) {
            try {
                for (RecordComponent component : COMPONENTS) {
                    Copy.class
                            .getField(component.getName())
                            .set(this, component.getAccessor().invoke(from));
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Copy has a public field per setting", e);
            }
        }

        /** The settings this copy holds, validated by the record's constructor. */
        private RebuildSettings settings() {
            Object[] values = new Object[COMPONENTS.length];
            Class<?>[] types = new Class<?>[COMPONENTS.length];
            try {
                for (int i = 0; i < COMPONENTS.length; i++) {
                    values[i] = Copy.class.getField(COMPONENTS[i].getName()).get(this);
                    types[i] = COMPONENTS[i].getType();
                }
                return RebuildSettings.class.getConstructor(types).newInstance(values);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException invalid) {
                    throw invalid; // a setting out of range, said by the constructor
                }
                throw new IllegalStateException(e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Copy has a public field per setting", e);
            }
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
