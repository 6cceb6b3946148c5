package dev.floe.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Peak heap of this JVM, two ways:
 *
 * <ul>
 *   <li>{@link #peakUsedBytes()}: the most used heap a daemon thread saw, sampling {@code
 *       MemoryMXBean.getHeapMemoryUsage()} every 10 ms. This includes garbage not yet collected,
 *       so it mostly says how far the collector let the heap fill.
 *   <li>{@link #peakLiveBytes()}: the most heap still in use right after a garbage collection, from
 *       the collectors' notifications ({@code GcInfo.getMemoryUsageAfterGc()}, heap pools summed);
 *       0 if no collection ran. A young collection leaves old-generation garbage in place, so this
 *       is an upper bound of the live data, and depends on when the collector chose to run.
 *   <li>{@link #probedLiveBytes()} and {@link #probedRebuildLiveBytes()}: the most heap in use after
 *       the full collections the caller asked for ({@link #collectAndMeasure()}), kept apart by
 *       whether a rebuild ran ({@link #record}): the live data at those moments.
 * </ul>
 */
final class HeapWatch implements AutoCloseable {
    private static final String GC_NOTIFICATION =
            com.sun.management.GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION;

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final AtomicLong peakUsed = new AtomicLong();
    private final AtomicLong peakLive = new AtomicLong();
    private final AtomicLong probedLive = new AtomicLong();
    private final AtomicLong probedRebuildLive = new AtomicLong();
    private final List<Long> probesOutside = new ArrayList<>();
    private final AtomicLong explicitLive = new AtomicLong();
    private final AtomicLong explicitCollections = new AtomicLong();
    private final Set<String> heapPools = new HashSet<>();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::onGc;
    private final Thread sampler;
    private volatile boolean running = true;

    HeapWatch() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter) {
                NotificationEmitter emitter = (NotificationEmitter) gc;
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
        sampler = new Thread(
                () -> {
                    while (running) {
                        sample();
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "heap-watch");
        sampler.setDaemon(true);
        sampler.start();
    }

    /** Forgets the peaks seen so far: what follows is measured afresh. */
    void reset() {
        peakUsed.set(0);
        peakLive.set(0);
        sample();
    }

    long peakUsedBytes() {
        sample();
        return peakUsed.get();
    }

    long peakLiveBytes() {
        return peakLive.get();
    }

    /**
     * Full collections until one frees no more (running the finalizers between), and the heap the
     * last left in use (its notification's usage after it, heap pools summed); kept nowhere. Not
     * {@code getHeapMemoryUsage()} read after it: other threads (floe's background work among them)
     * allocate between the collection's end and that read, and a read counts every region they began.
     */
    long collectAndMeasure() {
        // objects with a finalizer outlive the collection that finds them unreachable until the
        // finalizer thread has run them, and what only they reach waits for a later collection:
        // zstd-jni's ZstdOutputStream, of which Parquet makes one per compressed page, keeps its 1 MiB
        // page buffer so, and a probe right after a rebuild saw tens of MB of them. Unreachable is not
        // live: collect and run the finalizers until a collection frees no more (as JOL measures).
        // System.runFinalization() alone runs only what the reference handler has queued by then, and
        // a probe that asked too early saw no finalizer run, took the heap for settled and kept tens
        // of MB of such buffers (after a rebuild the host writes ZSTD too): each round now waits for
        // a sentinel of its own collection to be finalized first
        long live = collectOnce();
        for (int round = 0; round < 6; round++) {
            awaitFinalizers();
            long next = collectOnce();
            boolean settled = next > live - live / 100;
            live = Math.min(live, next);
            if (settled && round > 0) {
                break;
            }
        }
        return live;
    }

    /**
     * Until the finalizer thread has run the finalizer of an object a collection found unreachable
     * (it runs them in the order the collection queued them), then whatever is queued still.
     */
    private void awaitFinalizers() {
        java.util.concurrent.CountDownLatch finalized = new java.util.concurrent.CountDownLatch(1);
        newSentinel(finalized);
        long seen = explicitCollections.get();
        System.gc();
        long deadline = System.nanoTime() + 5_000_000_000L;
        try {
            while (!finalized.await(10, java.util.concurrent.TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
                System.runFinalization();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.runFinalization();
        // the sentinel's collection is not a measure: let its notification pass
        while (explicitCollections.get() == seen && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    /** An unreachable object whose finalizer counts {@code finalized} down. */
    @SuppressWarnings({"deprecation", "removal"})
    private static void newSentinel(java.util.concurrent.CountDownLatch finalized) {
        new Object() {
            @Override
            protected void finalize() {
                finalized.countDown();
            }
        };
    }

    /**
     * One {@code System.gc()}, and the heap it left in use, from its own notification (cause
     * "System.gc()"): not the collector's last GcInfo, which a young collection other threads set off
     * right after may already have replaced (its figure counts old-generation garbage).
     */
    private long collectOnce() {
        long seen = explicitCollections.get();
        System.gc();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (explicitCollections.get() == seen && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (explicitCollections.get() == seen) {
            throw new IllegalStateException("no full collection followed System.gc() within 5 s: the heap probes"
                    + " need explicit collections (drop -XX:+DisableExplicitGC or -XX:+ExplicitGCInvokesConcurrent)");
        }
        return explicitLive.get();
    }

    /**
     * Keeps {@code used}, a {@link #collectAndMeasure()}, among the probes of its kind: a rebuild's
     * buffers are its own peak, bounded by floe.rebuild.row-group-max-bytes, not what the guard holds.
     */
    void record(long used, boolean duringRebuild) {
        (duringRebuild ? probedRebuildLive : probedLive).accumulateAndGet(used, Math::max);
        if (!duringRebuild) {
            synchronized (probesOutside) {
                probesOutside.add(used);
            }
        }
    }

    /**
     * The median of the probes {@link #record}ed outside a rebuild; 0 if none was. What the process
     * holds most of the time: one probe now and then reads far more than its neighbours, guarded or
     * not, which the peak keeps and the median does not.
     */
    long probedLiveMedianBytes() {
        synchronized (probesOutside) {
            if (probesOutside.isEmpty()) {
                return 0;
            }
            List<Long> sorted = new ArrayList<>(probesOutside);
            java.util.Collections.sort(sorted);
            return sorted.get(sorted.size() / 2);
        }
    }

    /** The most heap {@link #record}ed outside a rebuild; 0 if none was. */
    long probedLiveBytes() {
        return probedLive.get();
    }

    /** The most heap {@link #record}ed during a rebuild; 0 if none was. */
    long probedRebuildLiveBytes() {
        return probedRebuildLive.get();
    }

    private void sample() {
        long used = memory.getHeapMemoryUsage().getUsed();
        peakUsed.accumulateAndGet(used, Math::max);
    }

    private void onGc(Notification notification, Object handback) {
        if (!GC_NOTIFICATION.equals(notification.getType()) || !(notification.getUserData() instanceof CompositeData)) {
            return;
        }
        try {
            com.sun.management.GarbageCollectionNotificationInfo info =
                    com.sun.management.GarbageCollectionNotificationInfo.from(
                            (CompositeData) notification.getUserData());
            long live = 0;
            for (Map.Entry<String, MemoryUsage> pool :
                    info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                if (heapPools.contains(pool.getKey())) {
                    live += pool.getValue().getUsed();
                }
            }
            peakLive.accumulateAndGet(live, Math::max);
            // the full collection itself: a collector that scavenges first reports that as System.gc() too
            if ("System.gc()".equals(info.getGcCause()) && "end of major GC".equals(info.getGcAction())) {
                explicitLive.set(live);
                explicitCollections.incrementAndGet();
            }
        } catch (RuntimeException e) {
            // a notification of a shape we do not know: ignore it
        }
    }

    @Override
    public void close() {
        running = false;
        sampler.interrupt();
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (Exception e) {
                // already gone
            }
        }
    }
}
