package dev.floe.runtime.install;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;

/**
 * The kept snapshots a rebuild rewrote onto its layout, ready to be installed in their place with
 * the rebuilt version ({@link RebuiltVersion#onTopOf}): each the same version of the table (same
 * id, sequence number, timestamp, schema, rows) over other files. And what the rebuilt snapshot's
 * summary says of them: where the layout map for the next rebuild is.
 *
 * @param rewritten each rewritten snapshot by id, as it is to be installed (no parent)
 * @param rebuiltSummary entries for the rebuilt snapshot's summary
 */
public record HistoryRewrites(Map<Long, Snapshot> rewritten, Map<String, String> rebuiltSummary) {
    /** The summary key of a snapshot floe rewrote onto a later layout: the id of the snapshot that rebuild pinned. */
    public static final String REWRITTEN = "floe.rewritten-onto";

    /** Nothing rewritten. */
    public static final HistoryRewrites NONE = new HistoryRewrites(Map.of(), Map.of());

    public HistoryRewrites {
        rewritten = Map.copyOf(rewritten);
        rebuiltSummary = Map.copyOf(rebuiltSummary);
    }

    Set<Long> ids() {
        return rewritten.keySet();
    }

    boolean has(long id) {
        return rewritten.containsKey(id);
    }

    Snapshot of(long id) {
        return rewritten.get(id);
    }

    /** How many snapshots were rewritten. */
    public int count() {
        return rewritten.size();
    }

    /**
     * The snapshots of {@code kept} that stay on {@code main}'s ancestry once these are installed:
     * those newer than the newest rewritten one (a writer's own walk for its markers finds them).
     */
    Set<Long> ancestral(TableMetadata current, Set<Long> kept) {
        long newestRewritten = Long.MIN_VALUE;
        for (long id : rewritten.keySet()) {
            Snapshot snapshot = current.snapshot(id);
            if (snapshot != null) {
                newestRewritten = Math.max(newestRewritten, snapshot.sequenceNumber());
            }
        }
        if (newestRewritten == Long.MIN_VALUE) {
            return kept;
        }
        Set<Long> ancestral = new HashSet<>();
        for (long id : kept) {
            Snapshot snapshot = current.snapshot(id);
            if (snapshot != null && snapshot.sequenceNumber() > newestRewritten) {
                ancestral.add(id);
            }
        }
        return ancestral;
    }
}
