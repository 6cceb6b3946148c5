package dev.floe.runtime.guard;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One of the guard's two background daemon threads, never a host thread: {@code floe-compactor}
 * runs the rebuilds at the trigger, recovery, trims and merges, one at a time; {@code
 * floe-promoter} the major rebuilds, the listing of what a rebuild retired, and reclaims.
 */
final class GuardThread {
    private final ScheduledThreadPoolExecutor worker;
    /** The threads the worker made (one at a time; a new one after a task killed its thread). */
    private final java.util.Set<Thread> threads = java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());

    GuardThread(String name) {
        this.worker = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            synchronized (threads) {
                threads.add(thread);
            }
            return thread;
        });
        worker.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        // once stopped (the process is ending), work a host commit would queue is dropped, not thrown
        worker.setRejectedExecutionHandler(new java.util.concurrent.ThreadPoolExecutor.DiscardPolicy());
    }

    /** True on this guard's background thread. */
    boolean isCurrent() {
        synchronized (threads) {
            return threads.contains(Thread.currentThread());
        }
    }

    void execute(Runnable task) {
        worker.execute(task);
    }

    void schedule(Runnable task, Duration delay) {
        worker.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    void every(Duration period, Runnable task) {
        worker.scheduleWithFixedDelay(task, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    int queueLength() {
        return worker.getQueue().size();
    }

    /** Tasks running now on the thread: 0 or 1 (the executor's own count, exact for one thread). */
    int running() {
        return worker.getActiveCount();
    }

    /** Waits until everything queued so far has run. */
    void awaitIdle(Duration timeout) throws InterruptedException {
        var done = worker.submit(() -> {});
        try {
            done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("floe's background thread did not go idle within " + timeout, e);
        }
    }

    /** Stops after the task at hand; queued tasks are dropped. */
    void close() {
        stop(Duration.ofSeconds(30));
    }

    /**
     * Stops after the task at hand, waiting for it at most {@code bound}; queued tasks are dropped.
     * True when the thread has ended (nothing of this guard runs any more).
     */
    boolean stop(Duration bound) {
        shutdown();
        return awaitStopped(bound);
    }

    /** Takes no more tasks and drops the queued ones; the one at hand goes on. */
    void shutdown() {
        worker.shutdown();
        worker.getQueue().clear();
    }

    /** Waits at most {@code bound} for the task at hand after {@link #shutdown}; true once the thread has ended. */
    boolean awaitStopped(Duration bound) {
        try {
            return worker.awaitTermination(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
