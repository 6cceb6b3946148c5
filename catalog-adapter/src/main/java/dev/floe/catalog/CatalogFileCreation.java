package dev.floe.catalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.Consumer;
import org.mapdb.DB;

/**
 * Creates a new catalog file so that a crash at any instant leaves either no catalog file or a
 * complete, empty catalog: never the half-written file MapDB's own creation can leave ("TODO crash
 * resistance while file is being created"), which no later open accepts.
 *
 * <p>The catalog is built under a temporary name, {@code <file>.creating}, closed (which syncs it),
 * then renamed to its real name, and the folder synced. A temporary file left by a crash held no
 * commit that ever returned to a caller, and is replaced.
 */
final class CatalogFileCreation {
    static final String CREATING = ".creating";

    private CatalogFileCreation() {}

    /** Creates {@code file}, which must not exist, with {@code initialize} run on it and committed. */
    static void create(Path file, Consumer<DB> initialize) {
        Path building = DurableFiles.sibling(file, CREATING);
        try {
            removeLeftovers(building);
            DB db = JournaledMapDb.open(building);
            try {
                initialize.accept(db);
                db.commit();
            } finally {
                db.close();
            }
            Files.move(building, file, StandardCopyOption.ATOMIC_MOVE);
            DurableFiles.syncFolderOf(file);
        } catch (IOException | RuntimeException e) {
            try {
                removeLeftovers(building);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof CatalogFileException known) {
                throw known;
            }
            throw new CatalogFileException(
                    file,
                    "Cannot create catalog file "
                            + file
                            + " ("
                            + CatalogFormat.describe(e)
                            + "). Its folder must be writable.",
                    e);
        }
    }

    private static void removeLeftovers(Path building) throws IOException {
        Files.deleteIfExists(building);
        Files.deleteIfExists(CommitJournal.pathOf(building));
        for (int n = 0; Files.deleteIfExists(DurableFiles.sibling(building, ".wal." + n)); n++) {
            // MapDB's write-ahead logs of the temporary file, numbered from 0
        }
    }
}
