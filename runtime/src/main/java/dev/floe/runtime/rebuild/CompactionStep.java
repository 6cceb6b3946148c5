package dev.floe.runtime.rebuild;

/** The named points of one rebuild, in order, as DESIGN.md's compaction flow numbers them. */
public enum CompactionStep {
    /** 1: the base snapshot is pinned. */
    PINNED,
    /** 2: the scratch table exists. */
    SCRATCH_CREATED,
    /** 3: a new Parquet file is about to be written (reached once per file). */
    FILE_STARTED,
    /** 3: every row of the base is written. */
    ROWS_WRITTEN,
    /** 4a: the manifest of the written files and the appends so far is written, without the gate. */
    MANIFEST_WRITTEN,
    /** 4b: the kept snapshots older than rewrite-after are written again over the rebuilt files (when history is kept). */
    HISTORY_REWRITTEN,
    /** 4d: the gate is held and the appends since the base are collected. */
    CAUGHT_UP,
    /** 5: the scratch table has its one snapshot. */
    SCRATCH_COMMITTED,
    /** 6: the rebuilt table is the live table. */
    SWAPPED,
    /** 7: the host's handles are reloaded and the gate released. */
    HANDLES_RELOADED,
    /** 8: the reclaim job lists every file to delete after the grace window. */
    RECLAIM_RECORDED
}
