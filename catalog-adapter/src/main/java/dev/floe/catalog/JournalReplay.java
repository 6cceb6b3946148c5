package dev.floe.catalog;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.mapdb.DB;
import org.mapdb.Serializer;
import org.mapdb.volume.RandomAccessFileVol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovery of a catalog file whose process died while it was open: a journal left beside the file
 * ({@link CommitJournal}) is the sign of it. Its complete commits are replayed onto a copy of the
 * file, {@code <file>.recovering}; only once MapDB reads every floe map of that copy does the copy
 * replace the file (an atomic rename), and only then is the journal removed. A file that cannot be
 * recovered is refused, and nothing is overwritten: the file and its journal stay as they are, with
 * the copy beside them.
 *
 * <p>Like SQLite's replay of a hot journal, this runs before the file is opened, under the catalog's
 * process lock.
 */
final class JournalReplay {
    static final String RECOVERING = ".recovering";
    private static final Logger LOG = LoggerFactory.getLogger(JournalReplay.class);

    private JournalReplay() {}

    /** Replays and removes {@code file}'s journal, if it has one. */
    static void recoverIfNeeded(Path file) {
        Path journal = CommitJournal.pathOf(file);
        if (!Files.exists(journal)) {
            return;
        }
        if (!Files.exists(file)) {
            throw new CatalogFileException(
                    file,
                    "Catalog file "
                            + file
                            + " does not exist, but its journal "
                            + journal
                            + " does: the file was moved or deleted after the process using it died. The journal"
                            + " was left as it is: put the catalog file back, or move the journal away to start"
                            + " a new catalog there.",
                    null);
        }
        CommitJournal.Contents contents;
        try {
            contents = CommitJournal.read(journal);
        } catch (CommitJournal.NotAJournalException e) {
            throw new CatalogFileException(
                    file,
                    "Catalog file "
                            + file
                            + " has a journal "
                            + journal
                            + " that is not a floe journal. Both were left as they are: move that file away if it"
                            + " is not floe's, or restore the catalog from a copy.",
                    e);
        } catch (IOException e) {
            throw new CatalogFileException(
                    file,
                    "Cannot read journal " + journal + " of catalog file " + file + " (" + e.getMessage()
                            + "). Both were left as they are; check their permissions.",
                    e);
        }
        try {
            if (!contents.commits().isEmpty()) {
                replay(file, contents);
            }
            Files.delete(journal);
            DurableFiles.syncFolderOf(journal);
        } catch (IOException e) {
            throw new CatalogFileException(
                    file,
                    "Cannot recover catalog file " + file + " from its journal " + journal + " ("
                            + CatalogFormat.describe(e) + "). Both were left as they are; the folder must be"
                            + " writable.",
                    e);
        }
        LOG.warn(
                "Catalog file {} was not closed by the process that last had it open: replayed {} commit(s)"
                        + " from its journal {}{}",
                file,
                contents.commits().size(),
                journal,
                contents.tornBytes() == 0
                        ? ""
                        : ", and dropped " + contents.tornBytes() + " bytes of a commit that was cut short"
                                + " before it returned to its caller");
    }

    private static void replay(Path file, CommitJournal.Contents contents) throws IOException {
        Path copy = DurableFiles.sibling(file, RECOVERING);
        // a copy left by a recovery that was itself cut short is only ever a copy: start again
        Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
        try (RandomAccessFile out = new RandomAccessFile(copy.toFile(), "rw")) {
            for (CommitJournal.Commit commit : contents.commits()) {
                if (out.length() < commit.fileLength()) {
                    out.setLength(commit.fileLength());
                }
                for (CommitJournal.Write write : commit.writes()) {
                    out.seek(write.offset());
                    out.write(write.bytes());
                }
            }
            out.getFD().sync();
        }
        try {
            readEveryMap(copy);
        } catch (RuntimeException | AssertionError e) {
            throw new CatalogFileException(
                    file,
                    "Catalog file "
                            + file
                            + " cannot be recovered: replaying the "
                            + contents.commits().size()
                            + " commit(s) of its journal "
                            + CommitJournal.pathOf(file)
                            + " gives a file MapDB cannot read ("
                            + CatalogFormat.describe(e)
                            + "). Nothing was overwritten: the file and its journal were left as they are, and"
                            + " the replayed copy kept as "
                            + copy
                            + ", for inspection. Restore the catalog from a backup, or point 'uri' at a new file.",
                    e);
        }
        Files.move(copy, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        DurableFiles.syncFolderOf(file);
    }

    /** Opens {@code copy} without writing to it and reads every entry of every floe map. */
    private static void readEveryMap(Path copy) {
        DB db = JournaledMapDb.open(copy, RandomAccessFileVol.FACTORY);
        try {
            for (String name : db.getAllNames()) {
                if (name.startsWith("floe.")) {
                    Map<String, String> map = db.treeMap(name, Serializer.STRING, Serializer.STRING)
                            .open();
                    map.forEach((key, value) -> {});
                }
            }
        } finally {
            db.close();
        }
    }
}
