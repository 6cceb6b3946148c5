package dev.floe.catalog;

import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * The transactions that move table pointers and their logs: a rename, the swap that installs a
 * rebuilt table (see {@link MapDbCatalog#swapTable(TableIdentifier, TableIdentifier, String, List)}),
 * and forgetting commit-log entries. Each is one store transaction: no reader ever sees a name
 * half-moved.
 */
final class PointerMoves {
    private PointerMoves() {}

    static void rename(CatalogStore store, TableIdentifier from, TableIdentifier to) {
        String fromKey = CatalogKeys.table(from);
        String toKey = CatalogKeys.table(to);
        store.write("rename table " + from + " to " + to, tx -> {
            String location = tx.pointer(fromKey);
            if (location == null) {
                throw new NoSuchTableException("Cannot rename %s to %s: Table does not exist", from, to);
            }
            if (tx.pointer(toKey) != null) {
                throw new AlreadyExistsException("Cannot rename %s to %s: Table already exists", from, to);
            }
            if (!to.namespace().equals(from.namespace())
                    && !to.namespace().isEmpty()
                    && !CatalogNamespaces.exists(tx.pointers(), tx.namespaces(), to.namespace())) {
                throw new NoSuchNamespaceException(
                        "Cannot rename %s to %s: Namespace does not exist: %s", from, to, to.namespace());
            }
            tx.putPointer(toKey, location);
            tx.removePointer(fromKey);
            tx.moveLog(fromKey, toKey);
            return null;
        });
    }

    /** Returns {@code live}'s location before the swap, or null if it had none. */
    static String swap(
            CatalogStore store,
            TableIdentifier live,
            TableIdentifier temp,
            String expectedLiveLocation,
            List<DurableChange> alsoRecord,
            Runnable insideTransaction,
            boolean keepLiveLog) {
        String liveKey = CatalogKeys.table(live);
        String tempKey = CatalogKeys.table(temp);
        return store.write("swap " + temp + " into " + live, tx -> {
            String tempLocation = tx.pointer(tempKey);
            if (tempLocation == null) {
                throw new NoSuchTableException("Cannot swap %s into %s: %s does not exist", temp, live, temp);
            }
            String liveLocation = tx.pointer(liveKey);
            if (expectedLiveLocation != null && !expectedLiveLocation.equals(liveLocation)) {
                throw new CommitFailedException(
                        "Cannot swap %s into %s: %s moved from %s to %s since the swap was" + " prepared",
                        temp, live, live, expectedLiveLocation, liveLocation);
            }
            tx.putPointer(liveKey, tempLocation);
            tx.removePointer(tempKey);
            // the old table's log goes, unless the temp table's metadata log goes on from the
            // live one's (a rebuild that kept history); the temp table's own log continues under
            // the live name after it, so those files can be reclaimed by reference once the
            // table's metadata log forgets them
            if (keepLiveLog) {
                tx.appendLogOf(tempKey, liveKey);
            } else {
                tx.pruneLog(liveKey);
                tx.moveLog(tempKey, liveKey);
            }
            if (!tempLocation.equals(tx.lastLogEntry(liveKey))) {
                tx.appendLog(liveKey, tempLocation);
            }
            for (DurableChange change : alsoRecord) {
                if (change.value() == null) {
                    tx.removeSection(change.section(), change.key());
                } else {
                    tx.putSection(change.section(), change.key(), change.value());
                }
            }
            insideTransaction.run();
            return liveLocation;
        });
    }

    /** Removes entries of a table's commit log (their files were deleted); how many were there. */
    static int forget(CatalogStore store, TableIdentifier identifier, java.util.Collection<Long> sequences) {
        if (sequences.isEmpty()) {
            return 0;
        }
        String key = CatalogKeys.table(identifier);
        return store.write("forget " + sequences.size() + " commits of " + identifier, tx -> {
            int removed = 0;
            for (long sequence : sequences) {
                removed += tx.removeLogEntry(key, sequence) ? 1 : 0;
            }
            return removed;
        });
    }
}
