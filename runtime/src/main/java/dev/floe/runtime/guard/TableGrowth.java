package dev.floe.runtime.guard;

/** How large a table's history has grown, as of one commit. */
public record TableGrowth(int snapshots, long dataFiles, long metadataBytes) {}
