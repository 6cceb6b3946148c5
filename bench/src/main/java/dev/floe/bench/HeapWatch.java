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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
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

    /** What {@link #collectAndMeasure()} returns when no full collection followed its requests. */
    static final long MISSING = -1;

    /** How long one collection of a probe asks {@code System.gc()} for a full collection. */
    static final long BUDGET_MS = 10_000;

    /**
     * HotSpot's collectors of the whole heap (G1, Parallel, Serial, ZGC, Shenandoah); others are
     * learned from their notifications.
     */
    private static final Set<String> FULL_COLLECTORS = Set.of(
            "G1 Old Generation",
            "PS MarkSweep",
            "MarkSweepCompact",
            "ZGC Cycles",
            "ZGC Major Cycles",
            "Shenandoah Cycles");

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final AtomicLong peakUsed = new AtomicLong();
    private final AtomicLong peakLive = new AtomicLong();
    private final AtomicLong probedLive = new AtomicLong();
    private final AtomicLong probedRebuildLive = new AtomicLong();
    private final List<Long> probesOutside = new ArrayList<>();
    private final AtomicInteger missingProbes = new AtomicInteger();
    private final AtomicLong droppedRequests = new AtomicLong();
    /** Collectors seen to make a full collection, beyond {@link #FULL_COLLECTORS}. */
    private final Set<String> fullCollectorNames = ConcurrentHashMap.newKeySet();
    /** The monitor of the three counts below, notified at every collection's notification. */
    private final Object full = new Object();
    /** Full collections notified so far, and the heap the last left in use. */
    private long fullCollections;

    private long fullLive;
    /** Collections of any kind notified so far. */
    private long collectionsNotified;

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
     * {@link #MISSING} when no full collection followed any of a probe's requests (see {@link
     * #collectOnce()}): the probe cannot measure, and says so rather than guess.
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
        if (live == MISSING) {
            missingProbes.incrementAndGet();
            return MISSING;
        }
        for (int round = 0; round < 6; round++) {
            // a round that cannot collect keeps what the full collections before it measured
            long next = awaitFinalizers() ? collectOnce() : MISSING;
            if (next == MISSING) {
                break;
            }
            boolean settled = next > live - live / 100;
            live = Math.min(live, next);
            if (settled && round > 0) {
                break;
            }
        }
        return live;
    }

    /** How many {@link #collectAndMeasure()} calls could not measure (returned {@link #MISSING}). */
    int missingProbes() {
        return missingProbes.get();
    }

    /**
     * Until the finalizer thread has run the finalizer of an object a collection found unreachable
     * (it runs them in the order the collection queued them), then whatever is queued still; false
     * when that collection did not happen.
     */
    private boolean awaitFinalizers() {
        java.util.concurrent.CountDownLatch finalized = new java.util.concurrent.CountDownLatch(1);
        newSentinel(finalized);
        // the sentinel's collection is not a measure: the finalizers it queues have not run yet
        if (collectOnce() == MISSING) {
            return false;
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        try {
            while (!finalized.await(10, java.util.concurrent.TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
                System.runFinalization();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.runFinalization();
        return true;
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
     * {@code System.gc()}, and the heap left in use by the first full collection that ends after it
     * (from that collection's notification: not the collector's last GcInfo, which a young
     * collection other threads set off right after may already have replaced); asked again while
     * none follows, for up to {@value #BUDGET_MS} ms; {@link #MISSING} if none did. A full collection
     * is any that ends after the first request, whatever its cause: one already under way, or one
     * the collector ran for an allocation failure instead of ours, measures the heap as well.
     *
     * <p>{@code System.gc()} does not promise a collection, and HotSpot drops one now and then with
     * no word: G1, Parallel and Serial skip an explicit full collection while any thread is inside a
     * JNI critical region (the GC locker: zstd-jni's streams, which write Parquet's ZSTD pages, and
     * the JDK's Deflater, which writes Iceberg's Avro manifests, both busy while floe rebuilds beside
     * the host), and run a young "GCLocker Initiated GC" when the region ends. The full collectors'
     * counts tell such a request apart at once (none moved); it waits for that young collection (the
     * regions in the way have ended by then) and asks again.
     */
    private long collectOnce() {
        long before;
        synchronized (full) {
            before = fullCollections;
        }
        long deadline = System.nanoTime() + BUDGET_MS * 1_000_000L;
        for (int request = 1; ; request++) {
            long any;
            synchronized (full) {
                any = collectionsNotified;
            }
            long counted = fullCollectorCount();
            System.gc();
            boolean dropped = counted >= 0 && fullCollectorCount() == counted;
            long live = awaitFull(before, dropped ? 0 : 5_000);
            if (live != MISSING) {
                if (request > 1) {
                    droppedRequests.addAndGet(request - 1);
                }
                return live;
            }
            if (System.nanoTime() > deadline) {
                droppedRequests.addAndGet(request);
                System.out.println("heap probe: no full collection followed " + request + " System.gc() requests in "
                        + BUDGET_MS + " ms ("
                        + (dropped
                                ? "the last was dropped, no full collector ran"
                                : "a full collector ran but no full collection was notified within 5 s")
                        + ")");
                return MISSING;
            }
            if (dropped) {
                // the GC locker's own (young) collection: the regions in the way have ended by then
                awaitPast(() -> collectionsNotified, any, 200);
            }
        }
    }

    /** Requests {@link #collectOnce()} made again because no full collection followed them. */
    long droppedRequests() {
        return droppedRequests.get();
    }

    /** The live bytes of the first full collection after the {@code before}-th; MISSING after {@code millis}. */
    private long awaitFull(long before, long millis) {
        synchronized (full) {
            return awaitPast(() -> fullCollections, before, millis) ? fullLive : MISSING;
        }
    }

    /**
     * Until {@code count} (of the notifications, read holding {@link #full}) is past {@code before},
     * or {@code millis}: whether it is.
     */
    private boolean awaitPast(java.util.function.LongSupplier count, long before, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (full) {
            try {
                for (long left = millis; count.getAsLong() == before && left > 0; ) {
                    full.wait(left);
                    left = (deadline - System.nanoTime()) / 1_000_000L;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return count.getAsLong() != before;
        }
    }

    /**
     * The collections of the collectors that make full ones so far (their counts move when {@code
     * System.gc()} returns, the notification comes later); -1 if none of them is known.
     */
    private long fullCollectorCount() {
        long count = -1;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (FULL_COLLECTORS.contains(gc.getName()) || fullCollectorNames.contains(gc.getName())) {
                count = Math.max(count, 0) + Math.max(0, gc.getCollectionCount());
            }
        }
        return count;
    }

    /**
     * Whether a collection's notification is of a full one: "end of major GC" (G1, Parallel, Serial),
     * whatever its cause, or a whole cycle System.gc() asked for (ZGC, Shenandoah). Not "end of minor
     * GC": a young collection leaves the old generation's garbage, and Parallel scavenges before a
     * full collection under the same cause.
     */
    static boolean isFull(String action, String cause) {
        return "end of major GC".equals(action) || ("end of GC cycle".equals(action) && "System.gc()".equals(cause));
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
            boolean isFull = isFull(info.getGcAction(), info.getGcCause());
            if (isFull) {
                fullCollectorNames.add(info.getGcName());
            }
            synchronized (full) {
                collectionsNotified++;
                if (isFull) {
                    fullCollections++;
                    fullLive = live;
                }
                full.notifyAll();
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
