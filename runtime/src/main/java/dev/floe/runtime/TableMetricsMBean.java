package dev.floe.runtime;

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

  int getTrackedHandles();
}
