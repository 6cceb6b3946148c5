package dev.floe.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * What the keep-up part watches from inside the host, after every commit: how many snapshots stand
 * above the newest one floe rebuilt (what its trigger counts, whatever history it keeps), and the
 * CPU time of floe's own threads (those named {@code floe-*}), from the JVM's thread CPU clocks.
 */
final class KeepUpWatch {
    /** The summary property floe's rebuilt snapshots carry (RebuiltFiles.SINCE_FULL). */
    static final String REBUILT = "floe.rebuilds-since-full";

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    /** The most CPU nanoseconds seen per floe thread (a thread's clock only grows). */
    private final Map<Long, Long> cpu = new HashMap<>();

    private int maxPending;

    KeepUpWatch() {
        if (threads.isThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
    }

    /** Notes the table as a commit left it, and floe's threads' CPU so far. */
    synchronized void observe(Table table) {
        maxPending = Math.max(maxPending, pending(table));
        sampleCpu();
    }

    /** Snapshots above the newest rebuilt one on the current snapshot's ancestry (all, if none). */
    static int pending(Table table) {
        int count = 0;
        for (Snapshot s = table.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (s.summary() != null && s.summary().containsKey(REBUILT)) {
                return count;
            }
            count += 1;
        }
        return count;
    }

    private void sampleCpu() {
        Thread[] all = new Thread[Thread.activeCount() * 2 + 16];
        int n = Thread.enumerate(all);
        for (int i = 0; i < n; i++) {
            Thread thread = all[i];
            if (thread.getName().startsWith("floe-")) {
                long nanos = threads.getThreadCpuTime(thread.getId());
                if (nanos > 0) {
                    cpu.merge(thread.getId(), nanos, Math::max);
                }
            }
        }
    }

    synchronized int maxPending() {
        return maxPending;
    }

    /** CPU milliseconds of floe's threads so far (those that ended count up to their last sample). */
    synchronized long floeCpuMillis() {
        sampleCpu();
        return cpu.values().stream().mapToLong(Long::longValue).sum() / 1_000_000;
    }
}
