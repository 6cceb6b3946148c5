package dev.floe.runtime;

/** JMX view of the guard as a whole: {@code dev.floe:type=Agent}. */
public interface GuardMetricsMBean {
    int getQueueLength();

    long getErrors();

    long getRebuilds();

    int getGuardedTables();

    String getLastError();
}
