package dev.floe.runtime.guard;

import dev.floe.runtime.seam.RebuildCatalog;
import java.util.function.Consumer;

/**
 * Where a guarded table's background work runs: floe's own instance of the table's catalog, as a
 * {@link RebuildCatalog} (floe's embedded catalog: another instance on the same file; a shared
 * catalog: one floe opened with the host's properties, and floe's state file).
 */
@FunctionalInterface
interface WorkingCatalog {
    /** Runs {@code work} there; false, running nothing, when there is no instance to work on now. */
    boolean run(Consumer<RebuildCatalog> work);
}
