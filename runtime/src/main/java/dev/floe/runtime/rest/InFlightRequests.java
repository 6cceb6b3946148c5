package dev.floe.runtime.rest;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The requests a handler is serving, so that the catalog they read is closed only after they ended:
 * each request holds a read lock while it runs; {@link #closeAndAwait} refuses new ones and takes
 * the write lock, keeping it for good once the running ones are done.
 */
final class InFlightRequests {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private volatile boolean closed;

    /** Whether a request may run now; if so, {@link #exit} must follow on the same thread. */
    boolean enter() {
        if (!lock.readLock().tryLock()) {
            return false;
        }
        if (closed) {
            lock.readLock().unlock();
            return false;
        }
        return true;
    }

    void exit() {
        lock.readLock().unlock();
    }

    /** Refuses new requests and waits up to {@code bound} for the running ones; whether they ended. */
    boolean closeAndAwait(Duration bound) {
        closed = true;
        try {
            return lock.writeLock().tryLock(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
