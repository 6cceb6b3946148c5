package dev.floe.catalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.DBException;
import org.mapdb.Serializer;

/**
 * The pointer store behind {@link MapDbCatalog}: one MapDB file holding namespaces, table pointers,
 * per-table commit logs and small durable sections that other floe components keep next to the
 * pointers (reclaim jobs, for example). Each commit is journaled by floe before it reaches the file
 * ({@link JournaledVolume}), and a journal left by a crash is replayed before the file is opened
 * ({@link JournalReplay}), so that a crash at any instant leaves every commit that returned.
 *
 * <p>Every mutation runs in {@link #write}: under one lock, applied to MapDB, committed durably,
 * and only then published to the in-memory mirror that all reads use. A reader therefore sees
 * either the state before a mutation or the state after it, never a half-applied one.
 *
 * <p>One store exists per file per JVM; catalogs that name the same file share it (reference
 * counted). Other processes are kept out by an exclusive lock on {@code <file>.lock}, held while
 * the store is open (see {@link ProcessLock}).
 */
final class CatalogStore {
    private static final Map<Path, CatalogStore> OPEN = new HashMap<>();

    private final Path file;
    private final ProcessLock processLock;
    private final DB db;
    private final BTreeMap<String, String> meta;
    private final BTreeMap<String, String> namespaces;
    private final BTreeMap<String, String> pointers;
    private final BTreeMap<String, String> commitLog;
    private final BTreeMap<String, String> sections;
    private final ReentrantLock writeLock = new ReentrantLock();
    private volatile Snapshot snapshot;
    private int references; // guarded by OPEN

    /** An immutable view of the pointers and namespaces, as of one committed transaction. */
    static final class Snapshot {
        final NavigableMap<String, String> pointers;
        final NavigableMap<String, Map<String, String>> namespaces;

        Snapshot(NavigableMap<String, String> pointers, NavigableMap<String, Map<String, String>> ns) {
            this.pointers = Collections.unmodifiableNavigableMap(pointers);
            this.namespaces = Collections.unmodifiableNavigableMap(ns);
        }
    }

    private CatalogStore(Path file, ProcessLock processLock, DB db) {
        this.file = file;
        this.processLock = processLock;
        this.db = db;
        this.meta =
                db.treeMap("floe.meta", Serializer.STRING, Serializer.STRING).createOrOpen();
        this.namespaces = db.treeMap("floe.namespaces", Serializer.STRING, Serializer.STRING)
                .createOrOpen();
        this.pointers =
                db.treeMap("floe.tables", Serializer.STRING, Serializer.STRING).createOrOpen();
        this.commitLog = db.treeMap("floe.commit-log", Serializer.STRING, Serializer.STRING)
                .createOrOpen();
        this.sections = db.treeMap("floe.sections", Serializer.STRING, Serializer.STRING)
                .createOrOpen();
        // commit the maps just created in a new file: a later rollback must not take them away
        db.commit();
        NavigableMap<String, Map<String, String>> ns = new TreeMap<>();
        namespaces.forEach((key, value) -> ns.put(key, PropertiesCodec.decode(value)));
        this.snapshot = new Snapshot(new TreeMap<>(pointers), ns);
    }

    /** Opens (or joins the already open) store for {@code file}, creating a new catalog if absent. */
    static CatalogStore acquire(Path file) {
        Path key = file.toAbsolutePath().normalize();
        synchronized (OPEN) {
            CatalogStore store = OPEN.get(key);
            if (store == null) {
                store = open(key);
                OPEN.put(key, store);
            }
            store.references += 1;
            return store;
        }
    }

    /** Joins the store of {@code file} if this JVM has it open; null if it does not. */
    static CatalogStore acquireIfOpen(Path file) {
        Path key = file.toAbsolutePath().normalize();
        synchronized (OPEN) {
            CatalogStore store = OPEN.get(key);
            if (store == null) {
                return null;
            }
            store.references += 1;
            return store;
        }
    }

    /** Gives back one reference; the last one closes the file. */
    void release() {
        synchronized (OPEN) {
            references -= 1;
            if (references > 0) {
                return;
            }
            // closed while OPEN is held: an acquire of the same file in this JVM waits until the file
            // and its process lock are released, instead of finding the lock still taken
            OPEN.remove(file);
            writeLock.lock();
            try {
                db.close();
            } finally {
                writeLock.unlock();
                processLock.release();
            }
        }
    }

    Path file() {
        return file;
    }

    Snapshot snapshot() {
        return snapshot;
    }

    /** The commit log of one table, sequence to metadata location, oldest first. */
    NavigableMap<Long, String> commitLog(String tableKey) {
        writeLock.lock();
        try {
            return logEntries(tableKey);
        } finally {
            writeLock.unlock();
        }
    }

    /** A table's commit-log entries as the file holds them (the caller holds the write lock). */
    private NavigableMap<Long, String> logEntries(String tableKey) {
        NavigableMap<Long, String> entries = new TreeMap<>();
        String prefix = CatalogKeys.logOf(tableKey);
        commitLog
                .subMap(prefix, true, prefix + CatalogKeys.END, false)
                .forEach((key, value) -> entries.put(CatalogKeys.sequenceOf(key), value));
        return entries;
    }

    /** The names of the durable sections that hold at least one entry. */
    java.util.SortedSet<String> sectionNames() {
        writeLock.lock();
        try {
            java.util.SortedSet<String> names = new java.util.TreeSet<>();
            for (String key : sections.keySet()) {
                int level = key.indexOf(CatalogKeys.LEVEL);
                names.add(level < 0 ? key : key.substring(0, level));
            }
            return names;
        } finally {
            writeLock.unlock();
        }
    }

    /** The entries of one durable section, key to value. */
    NavigableMap<String, String> section(String section) {
        writeLock.lock();
        try {
            NavigableMap<String, String> entries = new TreeMap<>();
            String prefix = section + CatalogKeys.LEVEL;
            sections.subMap(prefix, true, prefix + CatalogKeys.END, false)
                    .forEach((key, value) -> entries.put(key.substring(prefix.length()), value));
            return entries;
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Runs {@code body} as one transaction: applied, committed durably, then published to readers.
     * Anything {@code body} throws rolls the transaction back and is rethrown as it is; a failure of
     * MapDB itself becomes a {@link CatalogFileException} naming the file.
     */
    <T> T write(String what, Function<Transaction, T> body) {
        writeLock.lock();
        try {
            if (db.isClosed()) {
                throw new IllegalStateException("Catalog file " + file + " is closed");
            }
            Transaction tx = new Transaction(snapshot);
            T result;
            try {
                result = body.apply(tx);
                db.commit();
            } catch (DBException e) {
                rollbackQuietly();
                throw new CatalogFileException(
                        file, "Could not " + what + " in catalog file " + file + ": " + e.getMessage(), e);
            } catch (RuntimeException | Error e) {
                rollbackQuietly();
                throw e;
            }
            snapshot = tx.publish();
            return result;
        } finally {
            writeLock.unlock();
        }
    }

    private void rollbackQuietly() {
        try {
            db.rollback();
        } catch (RuntimeException suppressed) {
            // the file is already in trouble; the caller gets the original failure
        }
    }

    /** The mutations one {@link #write} may make. Reads see the transaction's own writes. */
    final class Transaction {
        private final Snapshot base;
        private TreeMap<String, String> newPointers;
        private TreeMap<String, Map<String, String>> newNamespaces;

        private Transaction(Snapshot base) {
            this.base = base;
        }

        NavigableMap<String, String> pointers() {
            return newPointers != null ? newPointers : base.pointers;
        }

        NavigableMap<String, Map<String, String>> namespaces() {
            return newNamespaces != null ? newNamespaces : base.namespaces;
        }

        String pointer(String tableKey) {
            return pointers().get(tableKey);
        }

        void putPointer(String tableKey, String location) {
            pointers.put(tableKey, location);
            mutablePointers().put(tableKey, location);
        }

        String removePointer(String tableKey) {
            pointers.remove(tableKey);
            return mutablePointers().remove(tableKey);
        }

        /** Appends {@code location} to the table's commit log under the next sequence number. */
        void appendLog(String tableKey, String location) {
            String prefix = CatalogKeys.logOf(tableKey);
            NavigableMap<String, String> entries = commitLog.subMap(prefix, true, prefix + CatalogKeys.END, false);
            long next = entries.isEmpty() ? 0 : CatalogKeys.sequenceOf(entries.lastKey()) + 1;
            commitLog.put(CatalogKeys.logEntry(tableKey, next), location);
        }

        /** Removes the whole commit log of a table; returns how many entries it had. */
        int pruneLog(String tableKey) {
            String prefix = CatalogKeys.logOf(tableKey);
            NavigableMap<String, String> entries = commitLog.subMap(prefix, true, prefix + CatalogKeys.END, false);
            int count = entries.size();
            entries.clear();
            return count;
        }

        /** The newest entry of a table's commit log, or null if it has none. */
        String lastLogEntry(String tableKey) {
            String prefix = CatalogKeys.logOf(tableKey);
            NavigableMap<String, String> entries = commitLog.subMap(prefix, true, prefix + CatalogKeys.END, false);
            return entries.isEmpty() ? null : entries.lastEntry().getValue();
        }

        /** Removes one entry of a table's commit log; true if it was there. */
        boolean removeLogEntry(String tableKey, long sequence) {
            return commitLog.remove(CatalogKeys.logEntry(tableKey, sequence)) != null;
        }

        /** Appends a table's commit log, in order, to the end of another's, and removes it. */
        void appendLogOf(String fromKey, String toKey) {
            for (String location : logEntries(fromKey).values()) {
                appendLog(toKey, location);
            }
            pruneLog(fromKey);
        }

        /** Moves a table's commit log under a new key, keeping its sequence numbers. */
        void moveLog(String fromKey, String toKey) {
            for (Map.Entry<Long, String> entry : logEntries(fromKey).entrySet()) {
                commitLog.put(CatalogKeys.logEntry(toKey, entry.getKey()), entry.getValue());
            }
            pruneLog(fromKey);
        }

        void putNamespace(String namespaceKey, Map<String, String> properties) {
            namespaces.put(namespaceKey, PropertiesCodec.encode(properties));
            mutableNamespaces().put(namespaceKey, Map.copyOf(properties));
        }

        boolean removeNamespace(String namespaceKey) {
            namespaces.remove(namespaceKey);
            return mutableNamespaces().remove(namespaceKey) != null;
        }

        void putSection(String section, String key, String value) {
            sections.put(section + CatalogKeys.LEVEL + key, value);
        }

        boolean removeSection(String section, String key) {
            return sections.remove(section + CatalogKeys.LEVEL + key) != null;
        }

        private TreeMap<String, String> mutablePointers() {
            if (newPointers == null) {
                newPointers = new TreeMap<>(base.pointers);
            }
            return newPointers;
        }

        private TreeMap<String, Map<String, String>> mutableNamespaces() {
            if (newNamespaces == null) {
                newNamespaces = new TreeMap<>(base.namespaces);
            }
            return newNamespaces;
        }

        private Snapshot publish() {
            if (newPointers == null && newNamespaces == null) {
                return base;
            }
            return new Snapshot(
                    newPointers != null ? newPointers : new TreeMap<>(base.pointers),
                    newNamespaces != null ? newNamespaces : new TreeMap<>(base.namespaces));
        }
    }

    private static CatalogStore open(Path file) {
        CatalogFormat.checkLooksLikeMapDb(file);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new CatalogFileException(
                    file,
                    "Cannot create the folder of catalog file " + file + " (" + CatalogFormat.describe(e) + ")",
                    e);
        }
        ProcessLock processLock = ProcessLock.acquire(file);
        DB db;
        try {
            // a journal left beside the file means its last process died with it open: replay it first
            JournalReplay.recoverIfNeeded(file);
            if (!Files.exists(file)) {
                CatalogFileCreation.create(file, CatalogFormat::initialize);
            }
            db = JournaledMapDb.open(file);
        } catch (CatalogFileException e) {
            processLock.abandon();
            throw e;
        } catch (RuntimeException | AssertionError e) {
            // MapDB reports a damaged file in many ways, not all of them DBExceptions
            processLock.abandon();
            throw new CatalogFileException(
                    file,
                    "Catalog file "
                            + file
                            + " is damaged or truncated and cannot be opened ("
                            + CatalogFormat.describe(e)
                            + "). It was left as it is: restore it from a copy, or point 'uri' at a new file.",
                    e);
        }
        try {
            CatalogFormat.checkFormat(file, db);
            return new CatalogStore(file, processLock, db);
        } catch (RuntimeException e) {
            try {
                // no rollback: it would write a log file beside a file that may not even be floe's, and
                // closing drops whatever was not committed anyway (and removes the empty journal)
                db.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            } finally {
                processLock.abandon();
            }
            throw e;
        }
    }
}
