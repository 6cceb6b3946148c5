package dev.floe.samples;

import org.apache.iceberg.Table;

/** A table handle the host holds for the whole run, and what its history looked like. */
public final class TableHandle {
    private final Table table;
    private int lastSnapshotCount = -1;
    private int collapses;
    private int rewrites;

    TableHandle(Table table) {
        this.table = table;
    }

    public Table table() {
        return table;
    }

    /**
     * After a commit through this handle: did its history shrink since the previous commit (someone
     * replaced it), and did the commit land on someone's rewrite of the table (its history shrank, or
     * below the new head, past manifest-only rewrites, is a snapshot that rewrote data files)?
     * Returns the snapshots the handle holds now.
     */
    synchronized int observeCommit() {
        int snapshots = TableFacts.count(table.snapshots());
        boolean shrank = lastSnapshotCount >= 0 && snapshots < lastSnapshotCount;
        if (shrank) {
            collapses++;
        }
        if (lastSnapshotCount >= 0 && (shrank || TableFacts.onARewrite(table))) {
            rewrites++;
        }
        lastSnapshotCount = snapshots;
        return snapshots;
    }

    synchronized int collapses() {
        return collapses;
    }

    /** Commits through this handle that landed on someone's rewrite of the table. */
    synchronized int rewrites() {
        return rewrites;
    }

    /** This handle rewrote the table's history itself: the shrink it sees next is its own doing. */
    public synchronized void rewroteHistory() {
        lastSnapshotCount = -1;
    }
}
