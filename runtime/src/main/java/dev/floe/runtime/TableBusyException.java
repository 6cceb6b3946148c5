package dev.floe.runtime;

/**
 * A rebuild gave up because commits other than appends (overwrites, deletes, schema changes) kept
 * landing on the live table while it ran. The live table was left exactly as it was.
 */
public class TableBusyException extends RebuildException {
    public TableBusyException(String message) {
        super(message);
    }
}
