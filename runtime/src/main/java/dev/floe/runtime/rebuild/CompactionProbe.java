package dev.floe.runtime.rebuild;

import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Told each time a rebuild reaches a {@link CompactionStep}. Metrics and progress reporting listen
 * here, and tests inject failures (an exception thrown here aborts the rebuild as a real failure at
 * that point would).
 */
@FunctionalInterface
public interface CompactionProbe {
    CompactionProbe NONE = (step, table) -> {};

    void reached(CompactionStep step, TableIdentifier table);
}
