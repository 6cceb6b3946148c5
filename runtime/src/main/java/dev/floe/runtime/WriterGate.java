package dev.floe.runtime;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The single-writer gate: one re-entrant lock per table. Every guarded commit passes it, and a
 * compaction holds it from its catch-up to the end of its swap, so no commit can land between the
 * moment the compactor reads the live table for the last time and the moment it swaps it.
 *
 * Tables are told apart by {@link TableKey}: one gate per table of each catalog.
 *
 * <p>Writers only ever wait while a swap is in progress; otherwise entering is an uncontended lock.
 */
public final class WriterGate {
    private final ConcurrentMap<TableKey, ReentrantLock> locks = new ConcurrentHashMap<>();

    /** Blocks until this thread holds {@code table}'s gate; returns how long it waited, in ns. */
    public long enter(TableKey table) {
        ReentrantLock lock = locks.computeIfAbsent(table, t -> new ReentrantLock());
        if (lock.tryLock()) {
            return 0;
        }
        long start = System.nanoTime();
        lock.lock();
        return System.nanoTime() - start;
    }

    /** Releases one hold of {@code table}'s gate by this thread. */
    public void exit(TableKey table) {
        ReentrantLock lock = locks.get(table);
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("This thread does not hold the gate of " + table);
        }
        lock.unlock();
    }

    /** How many threads wait for {@code table}'s gate right now (an estimate while they come and go). */
    public int waiting(TableKey table) {
        ReentrantLock lock = locks.get(table);
        return lock == null ? 0 : lock.getQueueLength();
    }

    /** True when the current thread holds {@code table}'s gate. */
    public boolean isHeldByCurrentThread(TableKey table) {
        ReentrantLock lock = locks.get(table);
        return lock != null && lock.isHeldByCurrentThread();
    }
}
