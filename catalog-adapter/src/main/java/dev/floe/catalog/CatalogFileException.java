package dev.floe.catalog;

import java.nio.file.Path;

/**
 * The catalog file cannot be used: it is not a floe catalog, it is damaged, or it cannot be written.
 * The message names the file, the problem and what to do about it; the file itself is left as it
 * was.
 */
public class CatalogFileException extends RuntimeException {
    private final Path file;

    public CatalogFileException(Path file, String message, Throwable cause) {
        super(message, cause);
        this.file = file;
    }

    /** The catalog file this is about. */
    public Path file() {
        return file;
    }
}
