package dev.floe.runtime.rebuild;

import dev.floe.runtime.TableKey;
import dev.floe.runtime.install.Installation;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.RebuildJournal;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.iceberg.TableOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The major rebuilds of a guard's tables ({@link MajorRebuild}), one per table at a time, each on
 * {@code executor} (the guard's second thread), never on the thread that runs the rebuilds at the
 * trigger. A table's entry is there from the moment a rebuild sets its major work apart ({@link
 * MajorSplit}) until a later rebuild installs what it wrote or discards it; while it is there, its
 * inputs are claimed: rebuilds keep them as they are.
 */
public final class Promotions {
    private static final Logger LOG = LoggerFactory.getLogger(Promotions.class);

    /** Runs work on an instance of a table's catalog that stays open meanwhile; false if there is none now. */
    @FunctionalInterface
    public interface Working {
        boolean run(TableKey table, Consumer<RebuildCatalog> work);
    }

    /** One table's major work: running, written, or failed. */
    private static final class Entry {
        final MajorRebuild work;
        final Set<String> inputs;
        volatile MajorRebuild.Written written;
        volatile boolean failed;
        /** A delete landed on an input while it ran: what it writes is discarded, its inputs are free. */
        volatile boolean abandoned;

        Entry(MajorRebuild work) {
            this.work = work;
            this.inputs = work.inputs();
        }
    }

    private final Executor executor;
    private final Executor after;
    private final Working working;
    private final BooleanSupplier stop;
    private final Map<TableKey, Entry> entries = new ConcurrentHashMap<>();

    /**
     * @param executor where major rebuilds run (a thread of their own)
     * @param after where what a rebuild leaves for after it runs ({@link #afterwards}; the agent's
     *     is {@code executor} too)
     * @param working the catalog instance each runs on
     * @param stop true once they should stop where they are (the JVM's exit)
     */
    public Promotions(Executor executor, Executor after, Working working, BooleanSupplier stop) {
        this.executor = executor;
        this.after = after;
        this.working = working;
        this.stop = stop;
    }

    BooleanSupplier stop() {
        return stop;
    }

    /** The files of {@code table} a major rebuild packs now or has packed: rebuilds keep them. */
    Set<String> claimed(TableKey table) {
        Entry entry = entries.get(table);
        if (entry != null && entry.failed) {
            entries.remove(table, entry);
            return Set.of();
        }
        return entry == null || entry.abandoned ? Set.of() : entry.inputs;
    }

    /** Whether {@code table} has major work now (running or written). */
    boolean busy(TableKey table) {
        Entry entry = entries.get(table);
        return entry != null && !entry.failed;
    }

    /** What the major rebuild of {@code table} wrote, once it has; null while it runs or if there is none. */
    MajorRebuild.Written written(TableKey table) {
        Entry entry = entries.get(table);
        return entry == null || entry.abandoned ? null : entry.written;
    }

    /**
     * The running major rebuild of {@code table} is given up ({@code why}: a delete landed on one of
     * its inputs, which a rebuild may not keep): its inputs are free at once, what it writes is
     * deleted when it ends.
     */
    void abandon(TableKey table, String why) {
        Entry entry = entries.get(table);
        if (entry != null && entry.written == null && !entry.abandoned) {
            entry.abandoned = true;
            LOG.info("floe: the major rebuild of {} is given up ({}); its inputs go back to the rebuilds", table, why);
        }
    }

    /** Starts {@code work} on the executor, unless {@code table} has major work already. */
    void start(TableKey table, MajorRebuild work) {
        Entry entry = new Entry(work);
        if (entries.putIfAbsent(table, entry) != null) {
            return;
        }
        executor.execute(() -> run(table, entry));
    }

    private void run(TableKey table, Entry entry) {
        long started = System.nanoTime();
        try {
            if (!working.run(table, catalog -> {
                entry.written = entry.work.write(catalog);
                if (entry.abandoned) {
                    discardWritten(catalog, table, entry.written, "given up while it ran");
                }
            })) {
                entry.failed = true;
                return;
            }
            if (entry.abandoned) {
                entry.failed = true;
                return;
            }
            LOG.info(
                    "floe: packed {} files of {} ({} bytes, {} rows) apart into {} in {} ms; the next rebuild"
                            + " installs them",
                    entry.inputs.size(),
                    table,
                    entry.written.inputBytes(),
                    entry.written.rows(),
                    entry.written.outputs().size(),
                    (System.nanoTime() - started) / 1_000_000);
        } catch (RuntimeException e) {
            entry.failed = true;
            if (stop.getAsBoolean()) {
                LOG.info("floe: the major rebuild of {} stopped with the JVM's exit", table);
            } else {
                LOG.warn(
                        "floe: the major rebuild of {} failed; its files go back to the rebuilds: {}",
                        table,
                        e.toString());
            }
        }
    }

    /**
     * Runs {@code work} apart, on {@code table}'s working catalog, after what is queued there:
     * a rebuild's listing of the files it retired, which reads every kept snapshot's manifests, done
     * while the next rebuild may already run.
     */
    void afterwards(TableKey table, Consumer<RebuildCatalog> work) {
        after.execute(() -> {
            try {
                working.run(table, work);
            } catch (RuntimeException e) {
                LOG.warn(
                        "floe: work after the rebuild of {} failed; the next reclaim retries it: {}",
                        table,
                        e.toString());
            }
        });
    }

    /** A rebuild on {@code catalog} installed what {@code table}'s major rebuild wrote: its journal goes, the table is free. */
    void installed(TableKey table, RebuildCatalog catalog, MajorRebuild.Written written) {
        LOG.info(
                "floe: {} installs the {} files packed apart from {} of its files",
                table,
                written.outputs().size(),
                written.inputs().size());
        try {
            RebuildJournal.forMajor(catalog.state(), table.table(), written.journalKey())
                    .clear();
        } finally {
            entries.remove(table);
        }
    }

    /**
     * What {@code table}'s major rebuild wrote cannot be installed ({@code why}): the files it wrote
     * that the table does not reference are deleted, and the table is free.
     */
    void discard(
            TableKey table, RebuildCatalog catalog, MajorRebuild.Written written, TableOperations liveOps, String why) {
        LOG.info(
                "floe: the {} files packed apart for {} are discarded ({}); their inputs go back to the rebuilds",
                written.outputs().size(),
                table,
                why);
        try {
            discardUnreferenced(catalog, table, written, liveOps);
        } finally {
            entries.remove(table);
        }
    }

    /** Deletes the files {@code written} lists that the table does not reference, and its journal. */
    private static void discardUnreferenced(
            RebuildCatalog catalog, TableKey table, MajorRebuild.Written written, TableOperations liveOps) {
        RebuildJournal journal = RebuildJournal.forMajor(catalog.state(), table.table(), written.journalKey())
                .listing(written.journalFiles());
        try {
            Installation.discardUnreferenced(liveOps, journal);
        } finally {
            journal.release(); // if the discard failed, the record stays for recovery, which may now take it
        }
    }

    private static void discardWritten(
            RebuildCatalog catalog, TableKey table, MajorRebuild.Written written, String why) {
        LOG.info(
                "floe: the {} files packed apart for {} are discarded ({})",
                written.outputs().size(),
                table,
                why);
        TableOperations ops =
                ((org.apache.iceberg.HasTableOperations) catalog.loadTableUncached(table.table())).operations();
        discardUnreferenced(catalog, table, written, ops);
    }
}
