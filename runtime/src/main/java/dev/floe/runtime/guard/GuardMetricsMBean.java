package dev.floe.runtime.guard;

/** JMX view of the guard as a whole: {@code dev.floe:type=Agent}. */
public interface GuardMetricsMBean {
    int getQueueLength();

    long getErrors();

    long getRebuilds();

    /** Rebuilds running now (0 or 1 per guard: one background thread); their buffers are the guard's peak. */
    int getRebuildsRunning();

    /** Tasks running now on floe's background thread (0 or 1): a rebuild, a reclaim, a trim, a recovery. */
    int getTasksRunning();

    int getGuardedTables();

    String getLastError();
}
