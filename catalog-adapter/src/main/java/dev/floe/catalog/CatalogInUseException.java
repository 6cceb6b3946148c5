package dev.floe.catalog;

import java.nio.file.Path;

/**
 * Another process holds the catalog file open. An open catalog holds an exclusive lock on {@code
 * <file>.lock} next to the file, so only one process at a time can use a catalog; a second one gets
 * this exception instead of a failure from inside MapDB.
 */
public class CatalogInUseException extends CatalogFileException {
    public CatalogInUseException(Path file, Throwable cause) {
        super(
                file,
                "Catalog file "
                        + file
                        + " is in use by another process, which holds its lock. Only one process can open a"
                        + " MapDB catalog at a time: stop that process first, or read its live state over JMX"
                        + " (dev.floe:type=Table,*).",
                cause);
    }
}
