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

    /**
     * Told once a rebuild has planned: it reads {@code readRows} rows ({@code readBytes}) of {@code
     * readFiles} data files, deletes included, and keeps {@code keptFiles} ({@code keptBytes}) as
     * they are.
     */
    default void planned(
            TableIdentifier table, long readFiles, long readRows, long readBytes, long keptFiles, long keptBytes) {}

    /** Told when the row groups of {@code files} of the files it reads ({@code rows}, {@code bytes}) were copied whole. */
    default void copied(TableIdentifier table, long files, long rows, long bytes) {}
}
