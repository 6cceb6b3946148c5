package dev.floe.runtime.guard;

import dev.floe.runtime.rebuild.CompactReport;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.HdrHistogram.ConcurrentHistogram;

/** Counters and gauges of one guarded table, updated on commit and rebuild, read over JMX. */
public final class TableMetrics implements TableMetricsMBean {
    private final ConcurrentHistogram gateWaits = new ConcurrentHistogram(3);
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong rebuilds = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong manifestMerges = new AtomicLong();
    private final IntSupplier trackedHandles;
    private volatile TableGrowth growth = new TableGrowth(0, 0, 0);
    private volatile String lastReport = "";
    private volatile String lastError = "";
    private volatile int busyStreak;
    private volatile String busyUntil = "";

    TableMetrics(IntSupplier trackedHandles) {
        this.trackedHandles = trackedHandles;
    }

    void committed(TableGrowth now, long gateWaitNanos) {
        growth = now;
        commits.incrementAndGet();
        gateWaits.recordValue(Math.max(0, gateWaitNanos));
    }

    void rebuilt(CompactReport report) {
        rebuilds.incrementAndGet();
        lastReport = report.summary();
    }

    /** Its small data manifests were merged between rebuilds ({@link ManifestMerge}). */
    void mergedManifests() {
        manifestMerges.incrementAndGet();
    }

    void failed(Throwable error) {
        failures.incrementAndGet();
        lastError = String.valueOf(error.getMessage());
    }

    /** A rebuild ended busy ({@code streak} in a row; 0: the last one did not) and waits until then. */
    void backedOff(int streak, java.time.Instant until) {
        busyStreak = streak;
        busyUntil = until == null ? "" : until.toString();
    }

    @Override
    public int getBusyStreak() {
        return busyStreak;
    }

    @Override
    public String getBusyUntil() {
        return busyUntil;
    }

    @Override
    public int getSnapshots() {
        return growth.snapshots();
    }

    @Override
    public long getDataFiles() {
        return growth.dataFiles();
    }

    @Override
    public long getMetadataBytes() {
        return growth.metadataBytes();
    }

    @Override
    public long getRebuilds() {
        return rebuilds.get();
    }

    @Override
    public long getRebuildFailures() {
        return failures.get();
    }

    @Override
    public String getLastReport() {
        return lastReport;
    }

    @Override
    public String getLastError() {
        return lastError;
    }

    @Override
    public double getGateWaitP99Millis() {
        return gateWaits.getValueAtPercentile(99) / 1e6;
    }

    @Override
    public long getManifestMerges() {
        return manifestMerges.get();
    }

    @Override
    public long getCommits() {
        return commits.get();
    }

    @Override
    public int getTrackedHandles() {
        return trackedHandles.getAsInt();
    }
}
