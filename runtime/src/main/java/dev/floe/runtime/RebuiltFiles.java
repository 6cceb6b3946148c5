package dev.floe.runtime;

import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;

/**
 * What the rebuilt snapshot lists, as known before the gate: the data files (kept, rewritten, and
 * appended during the stream), their pre-written manifest (null when there is none), the delete
 * files kept with them, and the count of rebuilds since the last full one.
 */
record RebuiltFiles(List<DataFile> known, ManifestFile prewritten, List<DeleteFile> deletes, int sinceFull) {
    RebuiltFiles {
        known = List.copyOf(known);
        deletes = List.copyOf(deletes);
    }

    /** Files listed one by one, as a whole rewrite of a table does: no deletes, no count. */
    static RebuiltFiles of(List<DataFile> known, ManifestFile prewritten) {
        return new RebuiltFiles(known, prewritten, List.of(), 0);
    }
}
