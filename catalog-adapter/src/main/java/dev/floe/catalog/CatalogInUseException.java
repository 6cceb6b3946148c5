package dev.floe.catalog;

import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Another process holds the catalog file open. An open catalog holds an exclusive lock on {@code
 * <file>.lock} next to the file, so only one process at a time can use a catalog; a second one gets
 * this exception instead of a failure from inside MapDB. {@link #holder} is the id of the process
 * that holds it, when that process wrote it into the lock file.
 */
public class CatalogInUseException extends CatalogFileException {
    private final OptionalLong holder;

    public CatalogInUseException(Path file, Throwable cause) {
        this(file, OptionalLong.empty(), cause);
    }

    public CatalogInUseException(Path file, OptionalLong holder, Throwable cause) {
        super(
                file,
                "Catalog file "
                        + file
                        + " is in use by another process"
                        + (holder.isPresent() ? " (process " + holder.getAsLong() + ")" : "")
                        + ", which holds its lock. Only one process can open a"
                        + " MapDB catalog at a time: stop that process first, or read its live state over JMX"
                        + " (dev.floe:type=Table,*).",
                cause);
        this.holder = holder;
    }

    /** The id of the process holding the file, if it could be read from the lock file. */
    public OptionalLong holder() {
        return holder;
    }
}
