package dev.floe.runtime.rows;

import org.apache.iceberg.ContentFile;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * What tells one delete file from another: its location, and for a deletion vector also its offset
 * in the Puffin file, which usually holds the vectors of many data files (as Iceberg's own {@code
 * DeleteFileSet} does). Data files are told apart by location alone.
 */
public final class DeleteFileKey {
    private DeleteFileKey() {}

    public static String of(ContentFile<?> file) {
        if (file instanceof org.apache.iceberg.DeleteFile delete && ContentFileUtil.isDV(delete)) {
            return delete.location() + "@" + delete.contentOffset();
        }
        return file.location();
    }
}
