package dev.floe.runtime.guard;

/** JMX view of one guarded table: {@code dev.floe:type=Table,name=<namespace.table>}. */
public interface TableMetricsMBean {
    int getSnapshots();

    long getDataFiles();

    long getMetadataBytes();

    long getRebuilds();

    long getRebuildFailures();

    String getLastReport();

    String getLastError();

    double getGateWaitP99Millis();

    long getCommits();

    /** Times its small data manifests were merged between rebuilds. */
    long getManifestMerges();

    int getTrackedHandles();

    /** Rebuilds in a row that ended busy (every attempt raced by commits other than appends); 0 once one succeeds. */
    int getBusyStreak();

    /** Until when a busy table is left alone (ISO-8601), empty when it is not. */
    String getBusyUntil();
}
