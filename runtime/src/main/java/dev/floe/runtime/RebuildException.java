package dev.floe.runtime;

/** A rebuild failed; the live table was left exactly as it was. The message says why. */
public class RebuildException extends RuntimeException {
    public RebuildException(String message) {
        super(message);
    }

    public RebuildException(String message, Throwable cause) {
        super(message, cause);
    }
}
