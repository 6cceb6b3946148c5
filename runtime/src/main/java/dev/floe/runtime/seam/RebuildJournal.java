package dev.floe.runtime.seam;

import dev.floe.catalog.DurableChange;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The durable record of a rebuild in progress: its scratch table and every file it has started to
 * write, each recorded before a byte of it is written. If the process dies mid-rebuild, recovery
 * finds here exactly what to delete. The swap removes the record in its own transaction.
 */
public final class RebuildJournal {
    public static final String SECTION = "floe.rebuild";
    private static final String HEADER = "floe-rebuild 1";

    private final FloeState state;
    private final TableIdentifier live;
    private final TableIdentifier scratch;
    private final Set<String> files = new LinkedHashSet<>();

    public RebuildJournal(FloeState state, TableIdentifier live, TableIdentifier scratch) {
        this.state = state;
        this.live = live;
        this.scratch = scratch;
    }

    /** The journal key's suffix of a major rebuild (one that packs apart and installs nothing itself). */
    private static final String MAJOR_SUFFIX = "__floe_major";

    /**
     * The journal of a new major rebuild of {@code live}, under a key of its own (no scratch table
     * goes with it; a record an earlier one left stays apart, for recovery).
     */
    public static RebuildJournal forMajor(FloeState state, TableIdentifier live) {
        return forMajor(
                state, live, TableIdentifier.of(live.namespace(), live.name() + MAJOR_SUFFIX + System.nanoTime()));
    }

    /** The journal of the major rebuild of {@code live} whose key is {@code key}. */
    public static RebuildJournal forMajor(FloeState state, TableIdentifier live, TableIdentifier key) {
        return new RebuildJournal(state, live, key);
    }

    /**
     * Whether this is a major rebuild's journal: what it lists may have been installed by another
     * rebuild since, so recovery deletes only the files the live table does not reference.
     */
    public boolean major() {
        return scratch.name().contains(MAJOR_SUFFIX);
    }

    /** This journal listing {@code more} files too, saved with its next change (a record read back, or rebuilt). */
    public RebuildJournal listing(Collection<String> more) {
        RebuildJournal copy = new RebuildJournal(state, live, scratch);
        copy.files.addAll(files);
        copy.files.addAll(more);
        return copy;
    }

    public TableIdentifier live() {
        return live;
    }

    public TableIdentifier scratch() {
        return scratch;
    }

    public List<String> files() {
        return List.copyOf(files);
    }

    /**
     * The major rebuilds this process runs now, by journal key: recovery, which may run on another
     * thread meanwhile, leaves their journals alone.
     */
    private static final Set<String> RUNNING = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Records the rebuild before its scratch table exists. */
    public void begin() {
        if (major()) {
            RUNNING.add(key());
        }
        save();
    }

    /**
     * This process holds what the journal lists no more (a major rebuild that failed to clean up):
     * the record stays for recovery, which no longer skips it.
     */
    public void release() {
        RUNNING.remove(key());
    }

    /** Whether this process is writing or holding what this journal lists now (a major rebuild's, not yet installed). */
    public boolean runningHere() {
        return RUNNING.contains(key());
    }

    /** Records a file before anything is written to it (once: a file recorded already is not again). */
    public void fileStarted(String location) {
        if (files.add(location)) {
            save();
        }
    }

    /**
     * Records files before anything is written to any of them, in one write of the record: names a
     * step reserves ahead for many small files. One never written is what recovery finds missing.
     */
    public void filesStarting(Collection<String> locations) {
        if (files.addAll(locations)) {
            save();
        }
    }

    /** Removes the record, in the swap's transaction. */
    public DurableChange clearOnSwap() {
        return DurableChange.remove(SECTION, key());
    }

    /** Removes the record once everything it lists is cleaned up. */
    public void clear() {
        state.remove(SECTION, key());
        RUNNING.remove(key());
    }

    /** The rebuilds a previous process left unfinished. */
    public static List<RebuildJournal> unfinished(FloeState state) {
        List<RebuildJournal> journals = new ArrayList<>();
        for (Map.Entry<String, String> entry : state.entries(SECTION).entrySet()) {
            DurableRecords.Reader record = new DurableRecords.Reader(entry.getValue(), HEADER);
            RebuildJournal journal = new RebuildJournal(
                    state, DurableRecords.identifier(record.one("live")), DurableRecords.identifier(entry.getKey()));
            journal.files.addAll(record.all("file"));
            journals.add(journal);
        }
        return journals;
    }

    private String key() {
        return DurableRecords.identifier(scratch);
    }

    private void save() {
        DurableRecords.Writer record = new DurableRecords.Writer(HEADER).field("live", DurableRecords.identifier(live));
        files.forEach(file -> record.field("file", file));
        state.put(SECTION, key(), record.toString());
    }
}
