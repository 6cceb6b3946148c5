package dev.floe.runtime.rows;

import java.util.function.Function;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.io.InputFile;

/**
 * Iceberg's delete loader, reading on the calling thread. Its default reads through Iceberg's
 * worker pool and has the caller poll for the result every 10 ms, so each delete file a rebuild
 * loads cost at least 10 ms: with hundreds of them (an upsert table), seconds per rebuild.
 */
public final class DeleteLoaders {
    private DeleteLoaders() {}

    public static BaseDeleteLoader onThisThread(Function<DeleteFile, InputFile> files) {
        return new BaseDeleteLoader(files, null); // no pool: Iceberg's Tasks run each on this thread
    }
}
