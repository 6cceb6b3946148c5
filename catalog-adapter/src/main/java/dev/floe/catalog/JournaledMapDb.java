package dev.floe.catalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.mapdb.CC;
import org.mapdb.DB;
import org.mapdb.StoreWAL;
import org.mapdb.volume.VolumeFactory;

/**
 * Opens a catalog file as a MapDB database whose commits go through floe's {@link CommitJournal}
 * (see {@link JournaledVolume}). The store is the one {@code
 * DBMaker.fileDB(file).transactionEnable().fileLockDisable().make()} builds in MapDB 3.1.0, with the
 * same arguments, except that MapDB gets its volumes from floe's factory, which {@code DBMaker} has
 * no option for.
 */
final class JournaledMapDb {
    private JournaledMapDb() {}

    /**
     * Opens (or creates) {@code file}, which must have no journal: {@link JournalReplay} has replayed
     * and removed any. MapDB's own exceptions pass through for the caller to word.
     */
    static DB open(Path file) {
        CommitJournal journal;
        try {
            journal = CommitJournal.start(file);
        } catch (IOException e) {
            throw CatalogFormat.cannotCreate(file, "journal", CommitJournal.pathOf(file), e);
        }
        try {
            return open(file, JournaledVolume.factory(file, journal));
        } catch (RuntimeException | Error e) {
            try {
                if (journal.size() == CommitJournal.HEADER) {
                    journal.closeAndDelete();
                } else {
                    journal.close(); // it holds a commit, which the next open replays
                }
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** A MapDB database on {@code file} whose volumes come from {@code volumes}. */
    static DB open(Path file, VolumeFactory volumes) {
        boolean exists = Files.exists(file);
        StoreWAL store = new StoreWAL(
                file.toString(),
                volumes,
                -1L, // no file lock of MapDB's: the catalog's ProcessLock keeps other processes out
                true, // thread safe
                CC.STORE_DIRECT_CONC_SHIFT,
                0L, // allocate increment, as DBMaker passes it
                0L, // allocate start size
                false, // delete after close
                false, // delete after open
                false, // checksum
                true, // header checksum
                false); // header checksum bypass
        try {
            return new DB(store, exists, true, Thread.currentThread().getContextClassLoader(), 0);
        } catch (RuntimeException | Error e) {
            try {
                store.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
