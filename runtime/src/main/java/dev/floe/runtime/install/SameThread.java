package dev.floe.runtime.install;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs each task on the calling thread: how a history rewrite plans and commits a kept snapshot,
 * instead of on Iceberg's shared worker pool, which a host's JVM exit shuts down while a rebuild may
 * still run (the rewrite of every snapshot would then fail), and which the host's own scans need.
 */
public final class SameThread extends AbstractExecutorService {
    public static final ExecutorService EXECUTOR = new SameThread();

    private SameThread() {}

    @Override
    public void execute(Runnable command) {
        command.run();
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isTerminated() {
        return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return false;
    }
}
