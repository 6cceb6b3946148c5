package dev.floe.runtime.install;

import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * What the rebuilt snapshot lists: the pinned data files (kept as they are, and rewritten) with the
 * deletes kept with them, the files carried from the commits since the pin (data files added, and
 * deletes carried or rebased by {@link DeltaRebase}), and the count of rebuilds since the last full
 * one.
 */
public record RebuiltFiles(
        List<DataFile> pinned,
        List<DeleteFile> pinnedDeletes,
        List<DataFile> carried,
        List<DeleteFile> carriedDeletes,
        int sinceFull) {
    /** Summary property of a rebuilt snapshot: rebuilds since the last full one, that one included. */
    public static final String SINCE_FULL = "floe.rebuilds-since-full";
    /** Summary property of a rebuilt snapshot: the id of the snapshot the rebuild pinned. */
    public static final String REBUILD_OF = "floe.rebuild-of-snapshot";

    public RebuiltFiles {
        pinned = List.copyOf(pinned);
        pinnedDeletes = List.copyOf(pinnedDeletes);
        carried = List.copyOf(carried);
        carriedDeletes = List.copyOf(carriedDeletes);
    }

    /** Files listed one by one, as a whole rewrite of a table does: no deletes, nothing carried, no count. */
    public static RebuiltFiles of(List<DataFile> pinned) {
        return new RebuiltFiles(pinned, List.of(), List.of(), List.of(), 0);
    }

    boolean isEmpty() {
        return pinned.isEmpty() && carried.isEmpty() && pinnedDeletes.isEmpty() && carriedDeletes.isEmpty();
    }

    public List<DataFile> dataFiles() {
        return Stream.concat(pinned.stream(), carried.stream()).toList();
    }

    public List<DeleteFile> deletes() {
        return Stream.concat(pinnedDeletes.stream(), carriedDeletes.stream()).toList();
    }

    long bytes() {
        return Stream.of(pinned, carried, pinnedDeletes, carriedDeletes)
                .flatMap(List::stream)
                .mapToLong(ContentFile::fileSizeInBytes)
                .sum();
    }
}
