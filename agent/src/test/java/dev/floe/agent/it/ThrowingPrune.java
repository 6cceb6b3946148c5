package dev.floe.agent.it;

import dev.floe.runtime.Prune;
import org.apache.iceberg.data.Record;

/** A prune that fails on row 5, as a buggy user prune would. */
public final class ThrowingPrune implements Prune {
    @Override
    public boolean drop(Record row) {
        if ((Long) row.getField("id") == 5L) {
            throw new IllegalStateException("archive lookup failed for row 5");
        }
        return false;
    }
}
