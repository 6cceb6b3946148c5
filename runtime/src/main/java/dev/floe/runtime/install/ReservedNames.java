package dev.floe.runtime.install;

import dev.floe.runtime.seam.RebuildJournal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * Locations for the many small files of one step of a rebuild (the history rewrite's manifests,
 * manifest lists and delete files), recorded in the rebuild's journal a block at a time before any
 * of them is written: one write of the journal per {@link #BLOCK} files instead of one per file, a
 * record that grows with the files (written whole each time), and a durable commit. A location
 * recorded and never used is one recovery finds never written.
 */
final class ReservedNames {
    static final int BLOCK = 64;

    private final RebuildJournal journal;
    private final UnaryOperator<String> place;
    private final String stem;
    private final String extension;
    private final Deque<String> free = new ArrayDeque<>();
    private long next;

    /**
     * Names {@code floe-<step>-<uuid>-<n><extension>}, each placed by {@code place} (a file name to
     * a location: the table's metadata folder or its data folder).
     */
    ReservedNames(RebuildJournal journal, String step, String extension, UnaryOperator<String> place) {
        this.journal = journal;
        this.place = place;
        this.stem = "floe-" + step + "-" + UUID.randomUUID() + "-";
        this.extension = extension;
    }

    /** The next location, recorded in the journal already. */
    String next() {
        if (free.isEmpty()) {
            List<String> block = new ArrayList<>(BLOCK);
            for (int i = 0; i < BLOCK; i++) {
                block.add(place.apply(stem + next++ + extension));
            }
            journal.filesStarting(block);
            free.addAll(block);
        }
        return free.removeFirst();
    }

    /** Whether {@code fileName} (as Iceberg names one) takes a name of this kind. */
    boolean fits(String fileName) {
        return fileName.endsWith(extension);
    }
}
