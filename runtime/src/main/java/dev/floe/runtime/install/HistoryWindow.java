package dev.floe.runtime.install;

import dev.floe.runtime.RebuildSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;

/**
 * Which snapshots of {@code main} a rebuild keeps below the rebuilt one, so that incremental
 * readers positioned in them, and time travel to them, go on across the rebuild.
 *
 * <p>The window reaches back {@link RebuildSettings#historyKeep()} from the rebuild, or the table's
 * own {@code history.expire.max-snapshot-age-ms} when the table sets it; the table's own {@code
 * history.expire.min-snapshots-to-keep}, when set, keeps at least that many newest snapshots however
 * old. Either way at most {@link RebuildSettings#historyKeepSnapshots()} are kept, so that metadata
 * stays bounded: the cap wins over every other setting. Only the history of {@code main} is kept (its
 * ancestors, and the old versions floe took off them, {@link #history}): a rebuild refuses tables
 * with other refs or staged snapshots.
 */
public record HistoryWindow(Duration keep, int minSnapshots, int cap) {
    /** Keeps nothing: the rebuilt snapshot replaces the history, as floe did before. */
    public static final HistoryWindow NONE = new HistoryWindow(Duration.ZERO, 0, 1);

    /** The window {@code settings} set for a table with {@code properties}. */
    public static HistoryWindow of(RebuildSettings settings, Map<String, String> properties) {
        Duration keep = settings.historyKeep();
        String age = properties.get(TableProperties.MAX_SNAPSHOT_AGE_MS);
        if (age != null) {
            keep = Duration.ofMillis(parse(age, keep.toMillis()));
        }
        int min = 0;
        String count = properties.get(TableProperties.MIN_SNAPSHOTS_TO_KEEP);
        if (count != null) {
            min = (int) Math.max(0, Math.min(Integer.MAX_VALUE, parse(count, 0)));
        }
        if (keep.isZero() && min == 0) {
            return NONE;
        }
        return new HistoryWindow(keep, min, settings.historyKeepSnapshots());
    }

    /** Whether this window keeps any snapshot. */
    public boolean keepsAny() {
        return !keep.isZero() || minSnapshots > 0;
    }

    /**
     * The snapshots of {@code current} to keep, newest first: the ancestors of the head of {@code
     * main}, then the snapshots floe rewrote onto a later layout or took off the ancestry with them
     * (no longer ancestors: {@link RebuiltVersion#onTopOf}), committed at {@code nowMillis - keep} or later, or among the newest
     * {@code minSnapshots}, at most {@code cap} of them.
     */
    public List<Snapshot> kept(TableMetadata current, long nowMillis) {
        List<Snapshot> kept = new ArrayList<>();
        if (!keepsAny()) {
            return kept;
        }
        long oldest = nowMillis - keep.toMillis();
        for (Snapshot snapshot : history(current)) {
            if (kept.size() >= cap || (snapshot.timestampMillis() < oldest && kept.size() >= minSnapshots)) {
                break;
            }
            kept.add(snapshot);
        }
        return kept;
    }

    /** The history of {@code main}, newest first: its ancestors, then the snapshots floe took off them below ({@link HistoryRewrites#placedByFloe}). */
    public static List<Snapshot> history(TableMetadata current) {
        List<Snapshot> history = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (Snapshot snapshot = current.currentSnapshot();
                snapshot != null;
                snapshot = snapshot.parentId() == null ? null : current.snapshot(snapshot.parentId())) {
            history.add(snapshot);
            seen.add(snapshot.snapshotId());
        }
        List<Snapshot> rewritten = new ArrayList<>();
        for (Snapshot snapshot : current.snapshots()) {
            if (!seen.contains(snapshot.snapshotId()) && HistoryRewrites.placedByFloe(snapshot)) {
                rewritten.add(snapshot);
            }
        }
        rewritten.sort(Comparator.comparingLong(Snapshot::sequenceNumber).reversed());
        history.addAll(rewritten);
        return history;
    }

    private static long parse(String value, long otherwise) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return otherwise; // Iceberg's own expiry would refuse it too; floe keeps its own setting
        }
    }
}
