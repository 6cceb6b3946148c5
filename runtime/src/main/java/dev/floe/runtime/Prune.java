package dev.floe.runtime;

import org.apache.iceberg.data.Record;

/**
 * Drops rows while a table is rebuilt: the one safe moment to shrink a table, since the rewrite is
 * total. For example, rows already archived to cold storage.
 *
 * <p>Implementations need a public no-argument constructor to be named in configuration. A prune
 * that throws aborts the rebuild cleanly: the live table is left exactly as it was.
 */
@FunctionalInterface
public interface Prune {
    /** Keeps every row. */
    Prune NONE = row -> false;

    /** True to leave {@code row} out of the rebuilt table. */
    boolean drop(Record row) throws Exception;

    /**
     * Whether this prune keeps every row whatever it is given, so that a rebuild need not read the
     * files it keeps as they are through it ({@link #NONE}; a wrapper of a prune says what the
     * wrapped one does).
     */
    default boolean keepsEveryRow() {
        return this == NONE;
    }
}
