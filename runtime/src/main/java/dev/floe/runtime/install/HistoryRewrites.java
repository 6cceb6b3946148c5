package dev.floe.runtime.install;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;

/**
 * The kept snapshots a rebuild rewrote onto its layout, ready to be installed in their place with
 * the rebuilt version ({@link RebuiltVersion#onTopOf}): each the same version of the table (same
 * id, sequence number, timestamp, schema, rows) over other files, with the files written for it. And
 * what the rebuilt snapshot's summary says of them: where the layout map for the next rebuild is.
 *
 * @param rewritten each rewritten snapshot by id, as it is to be installed (no parent)
 * @param files the files written for each rewritten snapshot (its manifest list, manifests, deletes)
 * @param rebuiltSummary entries for the rebuilt snapshot's summary
 */
public record HistoryRewrites(
        Map<Long, Snapshot> rewritten, Map<Long, List<String>> files, Map<String, String> rebuiltSummary) {
    /** The summary key of a snapshot floe rewrote onto a later layout: the id of the snapshot that rebuild pinned. */
    public static final String REWRITTEN = "floe.rewritten-onto";

    /**
     * The summary key of a kept snapshot floe took off {@code main}'s ancestry without rewriting it:
     * one below a rewritten snapshot (on the layout already, or holding rows a later delete took), or
     * the oldest one above them, which keeps its layout and is now where {@code main}'s ancestry ends.
     */
    public static final String ROOTED = "floe.history-root";

    /** Nothing rewritten. */
    public static final HistoryRewrites NONE = new HistoryRewrites(Map.of(), Map.of(), Map.of());

    public HistoryRewrites {
        rewritten = Map.copyOf(rewritten);
        files = Map.copyOf(files);
        rebuiltSummary = Map.copyOf(rebuiltSummary);
    }

    /** Whether floe took {@code snapshot} off {@code main}'s ancestry (rewritten or rooted): part of the history it keeps. */
    public static boolean placedByFloe(Snapshot snapshot) {
        Map<String, String> summary = snapshot.summary();
        return summary != null && (summary.containsKey(REWRITTEN) || summary.containsKey(ROOTED));
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
     * those newer than the newest of them rewritten (a writer's own walk for its markers finds them).
     */
    Set<Long> ancestral(TableMetadata current, Set<Long> kept) {
        long cut = newestRewritten(current, kept);
        if (cut == Long.MIN_VALUE) {
            return kept;
        }
        Set<Long> ancestral = new HashSet<>();
        for (long id : kept) {
            Snapshot snapshot = current.snapshot(id);
            if (snapshot != null && snapshot.sequenceNumber() > cut) {
                ancestral.add(id);
            }
        }
        return ancestral;
    }

    /** The sequence number of the newest snapshot of {@code kept} rewritten here; {@code Long.MIN_VALUE} if none. */
    long newestRewritten(TableMetadata current, Set<Long> kept) {
        long newest = Long.MIN_VALUE;
        for (long id : rewritten.keySet()) {
            Snapshot snapshot = current.snapshot(id);
            if (snapshot != null && kept.contains(id)) {
                newest = Math.max(newest, snapshot.sequenceNumber());
            }
        }
        return newest;
    }

    /** Whether {@code installed} holds the rewrite of snapshot {@code id} (the snapshot, over its new manifest list). */
    boolean installedIn(TableMetadata installed, long id) {
        Snapshot there = installed == null ? null : installed.snapshot(id);
        return there != null
                && Objects.equals(
                        there.manifestListLocation(), rewritten.get(id).manifestListLocation());
    }

    /**
     * Deletes the files written for rewrites that {@code installed} does not hold (their snapshot
     * left the window, or was expired by someone else, before the install): nothing references them.
     */
    public void deleteUnused(TableMetadata installed, FileIO io) {
        rewritten.keySet().forEach(id -> {
            if (!installedIn(installed, id)) {
                for (String file : files.getOrDefault(id, List.of())) {
                    try {
                        io.deleteFile(file);
                    } catch (NotFoundException e) {
                        // never written
                    }
                }
            }
        });
    }
}
