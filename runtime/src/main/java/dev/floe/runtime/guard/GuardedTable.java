package dev.floe.runtime.guard;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.TableMetadata;

/** What the guard knows of one guarded table between its commits and rebuilds. */
final class GuardedTable {
    final TableMetrics metrics;
    /** A rebuild of the table is queued or running. */
    final AtomicBoolean queued = new AtomicBoolean();

    final AtomicBoolean warnedRefused = new AtomicBoolean();
    /** A metadata trim is queued. */
    final AtomicBoolean trimQueued = new AtomicBoolean();

    final AtomicInteger commitsSinceTrim = new AtomicInteger();
    /** Commits observed since its last rebuild or manifest merge, and whether a merge is queued. */
    final AtomicInteger commitsSinceMerge = new AtomicInteger();

    final AtomicBoolean mergeQueued = new AtomicBoolean();
    volatile TableMetadata lastCommitted;
    volatile Instant lastRebuild;
    volatile long filesAfterRebuild;
    /** Busy rebuilds in a row, and until when the table is left alone after the last one. */
    volatile int busyStreak;

    volatile Instant busyUntil;

    /** Where its background work runs: floe's own instance of its catalog. */
    volatile WorkingCatalog working;
    /** A shared catalog's table: its metadata bytes as last measured, when, and whether a measure is queued. */
    volatile long metadataBytes;

    volatile Instant measuredAt;
    final AtomicBoolean measureQueued = new AtomicBoolean();
    /** Metadata files its host commits dropped from its log, to delete at the next trim. */
    final java.util.Queue<String> forgotten = new java.util.concurrent.ConcurrentLinkedQueue<>();

    GuardedTable(TableMetrics metrics) {
        this.metrics = metrics;
    }

    boolean busyAt(Instant now) {
        Instant until = busyUntil;
        return until != null && now.isBefore(until);
    }
}
