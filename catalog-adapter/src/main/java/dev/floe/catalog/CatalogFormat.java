package dev.floe.catalog;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.mapdb.DB;
import org.mapdb.Serializer;

/**
 * What makes a file a floe catalog, checked before and after MapDB opens it, each refusal with one
 * message that names the file and what to do.
 */
final class CatalogFormat {
    static final String FORMAT = "floe-catalog";
    static final String FORMAT_VERSION = "1";
    /** The first byte of every MapDB 3 file. */
    private static final int MAPDB_HEADER = 0x4A;
    /** The second byte of a MapDB 3 file is its kind; a catalog is a store. */
    private static final int MAPDB_STORE = 3;
    /** The other kinds: write-ahead log, sorted tables, trivial store. */
    private static final Set<Integer> MAPDB_OTHER_KINDS = Set.of(2, 10, 11, 12, 20);

    private CatalogFormat() {}

    /** Refuses, before MapDB touches it, a file that cannot be a MapDB store. */
    static void checkLooksLikeMapDb(Path file) {
        if (!Files.exists(file)) {
            return;
        }
        if (Files.isDirectory(file)) {
            throw new CatalogFileException(
                    file, "Catalog file " + file + " is a directory. Point 'uri' at a file inside it instead.", null);
        }
        int first;
        int second;
        try (InputStream in = Files.newInputStream(file)) {
            first = in.read();
            second = in.read();
        } catch (IOException e) {
            throw new CatalogFileException(
                    file, "Catalog file " + file + " cannot be read (" + describe(e) + "). Check its permissions.", e);
        }
        if (first == -1) {
            throw new CatalogFileException(
                    file,
                    "Catalog file "
                            + file
                            + " is empty, so it is not a floe catalog. It was left as it is: remove it to start"
                            + " a new catalog there, or point 'uri' at another file.",
                    null);
        }
        boolean mapDb =
                first == MAPDB_HEADER && (second == -1 || second == MAPDB_STORE || MAPDB_OTHER_KINDS.contains(second));
        if (!mapDb) {
            throw new CatalogFileException(
                    file,
                    "Catalog file "
                            + file
                            + " is not a MapDB file, so it is not a floe catalog. It was left as it is: point"
                            + " 'uri' at another file.",
                    null);
        }
        if (second != -1 && second != MAPDB_STORE) {
            throw new CatalogFileException(
                    file,
                    "Catalog file "
                            + file
                            + " is a MapDB file of another kind than a store (a write-ahead log, for example),"
                            + " so it is not a floe catalog. It was left as it is: point 'uri' at the catalog"
                            + " file itself.",
                    null);
        }
    }

    /** Marks a new file as a floe catalog, and refuses a MapDB file that belongs to something else. */
    static void checkFormat(Path file, DB db) {
        boolean foreign = false;
        boolean marked = false;
        for (String name : db.getAllNames()) {
            foreign |= !name.startsWith("floe.");
            marked |= name.equals("floe.meta");
        }
        if (foreign && !marked) {
            // refused before anything is created in it, so nothing is written to or beside it
            throw notFloe(file);
        }
        Map<String, String> meta =
                db.treeMap("floe.meta", Serializer.STRING, Serializer.STRING).createOrOpen();
        String format = meta.get("format");
        if (format == null) {
            if (foreign) {
                throw notFloe(file);
            }
            initialize(db);
            db.commit();
        } else if (!FORMAT.equals(format)) {
            throw new CatalogFileException(
                    file, "Catalog file " + file + " has format '" + format + "', not a floe catalog.", null);
        } else if (!FORMAT_VERSION.equals(meta.get("version"))) {
            throw new CatalogFileException(
                    file,
                    "Catalog file "
                            + file
                            + " was written by a floe with catalog format version "
                            + meta.get("version")
                            + "; this floe reads version "
                            + FORMAT_VERSION
                            + ". Use the floe release that wrote it.",
                    null);
        }
    }

    /** Marks a new, empty MapDB database as a floe catalog; the caller commits. */
    static void initialize(DB db) {
        Map<String, String> meta =
                db.treeMap("floe.meta", Serializer.STRING, Serializer.STRING).createOrOpen();
        meta.put("format", FORMAT);
        meta.put("version", FORMAT_VERSION);
    }

    private static CatalogFileException notFloe(Path file) {
        return new CatalogFileException(
                file,
                "Catalog file "
                        + file
                        + " is a MapDB file written by something other than floe. It was left as it is:"
                        + " point 'uri' at another file.",
                null);
    }

    /** One message for a file floe must create next to the catalog file and cannot. */
    static CatalogFileException cannotCreate(Path file, String what, Path path, IOException e) {
        return new CatalogFileException(
                file,
                "Cannot create " + what + " " + path + " of catalog file " + file + " (" + describe(e)
                        + "). Its folder must be writable.",
                e);
    }

    static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }
}
