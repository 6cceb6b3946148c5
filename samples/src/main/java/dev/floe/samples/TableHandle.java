package dev.floe.samples;

import org.apache.iceberg.Table;

/** A table handle the host holds for the whole run, and what its history looked like. */
public final class TableHandle {
    private final Table table;
    private int lastSnapshotCount = -1;
    private int collapses;

    TableHandle(Table table) {
        this.table = table;
    }

    public Table table() {
        return table;
    }

    /**
     * After a commit through this handle: did its history shrink since the previous commit?
     * Returns the snapshots the handle holds now.
     */
    synchronized int observeCommit() {
        int snapshots = TableFacts.count(table.snapshots());
        if (lastSnapshotCount >= 0 && snapshots < lastSnapshotCount) {
            collapses++;
        }
        lastSnapshotCount = snapshots;
        return snapshots;
    }

    synchronized int collapses() {
        return collapses;
    }

    /** This handle rewrote the table's history itself: the shrink it sees next is its own doing. */
    public synchronized void rewroteHistory() {
        lastSnapshotCount = -1;
    }
}
