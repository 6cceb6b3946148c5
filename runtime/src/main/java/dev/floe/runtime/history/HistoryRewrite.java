package dev.floe.runtime.history;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.deltas.CompactionMap;
import dev.floe.runtime.install.HistoryRewrites;
import dev.floe.runtime.install.HistoryWindow;
import dev.floe.runtime.install.RewrittenSnapshot;
import dev.floe.runtime.rows.RollingParquetWriter;
import dev.floe.runtime.seam.RebuildJournal;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.OutputFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A step of a rebuild that keeps history (seed 001's second half): the kept snapshots older than
 * {@code floe.history.rewrite-after} are rewritten onto the rebuilt layout ({@link SnapshotImage},
 * {@link RewrittenSnapshot}), so that the small files only they referenced are reclaimed while every
 * kept version still answers time travel with the same rows. Younger snapshots keep their layout:
 * incremental readers and change consumers read what each commit added from it.
 *
 * <p>Prepared before the gate, from the rebuild's compaction map composed onto the layout map the
 * previous rebuild left ({@link LayoutMap}); installed with the rebuilt version, in the same commit
 * ({@link HistoryRewrites}). The composed map is written next to the table's metadata and named in
 * the rebuilt snapshot's summary for the next rebuild.
 *
 * <p>Only format 2: format 1 has no deletes, and in format 3 Iceberg refuses a snapshot whose
 * {@code first-row-id} is below the table's {@code next-row-id}, which every kept snapshot's is.
 */
public final class HistoryRewrite {
    private static final Logger LOG = LoggerFactory.getLogger(HistoryRewrite.class);

    /**
     * Manifest lists of snapshots found not worth rewriting: every file of theirs that left the
     * layout holds a row a later delete took, which no later rebuild brings back. Remembered (at most
     * this many) so that an upserted table's old snapshots are not planned again at every rebuild.
     */
    private static final java.util.Set<String> NOT_WORTH_IT = java.util.Collections.newSetFromMap(
            java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>(256, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > SnapshotFiles.REMEMBERED;
                }
            }));

    /** A snapshot on rebuilt files is rewritten again once those that left weigh this share of the layout (or a fragment). */
    static final int AGAIN_SHARE = 32;

    private HistoryRewrite() {}

    /**
     * The rewrites of {@code current}'s kept snapshots onto {@code layout} (the rebuild's pinned data
     * files), through {@code map}, the rebuild's compaction map. {@code pinned} is the snapshot the
     * rebuild pinned: only it and older snapshots are rewritten. A snapshot that lists only files
     * rebuilds wrote (rewritten by an earlier one, or a rebuilt one) is rewritten again only once those
     * of them that left the layout weigh {@code fragmentBytes} (what each rebuild packs again) or
     * {@value #AGAIN_SHARE}th of the layout: on a table larger than a few fragments a version is
     * rewritten about once, not at every rebuild while it is kept; on a smaller one, whose every
     * rebuild packs it whole, keeping an earlier layout would double what the versions reference.
     */
    public static HistoryRewrites prepare(
            Table live,
            TableOperations liveOps,
            TableMetadata current,
            Snapshot pinned,
            CompactionMap map,
            List<DataFile> layout,
            RebuildSettings settings,
            long fragmentBytes,
            Prune prune,
            long nowMillis,
            RebuildJournal journal) {
        Duration after = settings.historyRewriteAfter();
        HistoryWindow window = HistoryWindow.of(settings, current.properties());
        if (after == null || current.formatVersion() != 2 || !window.keepsAny()) {
            return HistoryRewrites.NONE;
        }
        LayoutMap composed = previous(live, current).composedWith(map, LayoutMap.THIS_REBUILD);
        Map<String, DataFile> files = new HashMap<>();
        layout.forEach(file -> files.put(file.location(), file));
        long againBytes = Math.min(
                fragmentBytes,
                layout.stream().mapToLong(DataFile::fileSizeInBytes).sum() / AGAIN_SHARE);
        SnapshotImage image = new SnapshotImage(live, files, composed, prune);
        RewrittenSnapshot writer = null;
        Map<Long, Snapshot> rewritten = new LinkedHashMap<>();
        long waitingFrom = Long.MAX_VALUE;
        long cutoff = nowMillis - after.toMillis();
        Map<Long, List<String>> written = new LinkedHashMap<>();
        int failed = 0;
        RuntimeException firstFailure = null;
        for (Snapshot snapshot : window.kept(current, nowMillis)) {
            if (snapshot.timestampMillis() > cutoff || snapshot.sequenceNumber() > pinned.sequenceNumber()) {
                waitingFrom = Math.min(waitingFrom, snapshot.sequenceNumber());
                continue;
            }
            if (!readsTheRebuiltFiles(current.schemas().get(snapshot.schemaId()), current.schema())) {
                continue; // a field it has is gone or changed type since: read with its schema, the rebuilt files would
                // not give its rows
            }
            if (prune.keepsEveryRow() && NOT_WORTH_IT.contains(snapshot.manifestListLocation())) {
                continue;
            }
            try {
                List<DataFile> left = SnapshotFiles.leftOf(snapshot, live.io(), current.specsById(), files.keySet());
                if (left.isEmpty()) {
                    continue; // on this layout already (and a prune's rows are not in it: a kept file was read through
                    // it)
                }
                if (prune.keepsEveryRow() && onSmallRebuiltFiles(left, againBytes)) {
                    // it stays on the small files of an earlier rebuild, until they weigh enough or it leaves the
                    // window; the map keeps where their rows went
                    waitingFrom = Math.min(waitingFrom, snapshot.sequenceNumber());
                    continue;
                }
                SnapshotImage.Result result = image.of(snapshot);
                if (!result.worthIt(againBytes)) {
                    if (result.keptAsTheyAre() == result.left()) {
                        // every file of it that left the layout is kept as it is, and holds no row the prune drops
                        NOT_WORTH_IT.add(snapshot.manifestListLocation());
                    } else {
                        waitingFrom = Math.min(waitingFrom, snapshot.sequenceNumber());
                    }
                    continue;
                }
                if (writer == null) {
                    writer = new RewrittenSnapshot(liveOps, current, journal);
                }
                RewrittenSnapshot.Written done = writer.write(snapshot, result.files(), pinned.snapshotId());
                rewritten.put(snapshot.snapshotId(), done.snapshot());
                written.put(snapshot.snapshotId(), done.files());
            } catch (RuntimeException e) {
                failed += 1;
                firstFailure = firstFailure == null ? e : firstFailure;
                waitingFrom = Math.min(waitingFrom, snapshot.sequenceNumber());
            }
        }
        if (failed > 0) {
            LOG.warn(
                    "floe: {} kept snapshot(s) of {} keep their layout: they could not be rewritten onto the rebuilt"
                            + " one (the first: {}); they are tried again at the next rebuild",
                    failed,
                    live.name(),
                    firstFailure.toString());
        }
        LayoutMap next = composed.consumedFrom(waitingFrom);
        Map<String, String> summary = new HashMap<>();
        if (!next.isEmpty()) {
            String location = liveOps.metadataFileLocation("floe-layout-map-" + UUID.randomUUID() + ".bin");
            journal.fileStarted(location);
            OutputFile out = live.io().newOutputFile(location);
            next.write(out);
            summary.put(LayoutMap.SUMMARY_KEY, location);
        }
        if (!rewritten.isEmpty()) {
            LOG.info(
                    "floe: the rebuild of {} rewrites {} kept snapshot(s) older than {} onto its layout",
                    live.name(),
                    rewritten.size(),
                    after);
        }
        return new HistoryRewrites(rewritten, written, summary);
    }

    /** Whether every file of {@code left} is one a rebuild wrote, and together they weigh less than {@code againBytes}. */
    private static boolean onSmallRebuiltFiles(List<DataFile> left, long againBytes) {
        long bytes = 0;
        for (DataFile file : left) {
            if (!RollingParquetWriter.wroteByRebuild(file.location())) {
                return false;
            }
            bytes += file.fileSizeInBytes();
        }
        return bytes < againBytes;
    }

    /**
     * Whether a version of schema {@code then} reads the rebuilt files (written in {@code now}) as
     * its own: every field it has is there, by id, with the same type. A field dropped since would
     * read as null, and one widened since (int to long) would not read.
     */
    static boolean readsTheRebuiltFiles(org.apache.iceberg.Schema then, org.apache.iceberg.Schema now) {
        if (then == null) {
            return false;
        }
        for (org.apache.iceberg.types.Types.NestedField field :
                org.apache.iceberg.types.TypeUtil.indexById(then.asStruct()).values()) {
            org.apache.iceberg.types.Types.NestedField there = now.findField(field.fieldId());
            if (there == null
                    || (field.type().isPrimitiveType() && !field.type().equals(there.type()))) {
                return false;
            }
        }
        return true;
    }

    /** The layout map the newest rebuild of {@code current} left; empty if none (or it cannot be read). */
    static LayoutMap previous(Table live, TableMetadata current) {
        Snapshot newest = null;
        for (Snapshot snapshot : current.snapshots()) {
            if (snapshot.summary() != null
                    && snapshot.summary().get(LayoutMap.SUMMARY_KEY) != null
                    && (newest == null || snapshot.sequenceNumber() > newest.sequenceNumber())) {
                newest = snapshot;
            }
        }
        if (newest == null) {
            return LayoutMap.empty();
        }
        String location = newest.summary().get(LayoutMap.SUMMARY_KEY);
        try {
            return LayoutMap.read(live.io().newInputFile(location), newest.sequenceNumber());
        } catch (NotFoundException | IllegalStateException | java.io.UncheckedIOException e) {
            LOG.warn(
                    "floe: the layout map of {} ({}) cannot be read ({}); snapshots that need it keep their layout",
                    live.name(),
                    location,
                    e.toString());
            return LayoutMap.empty();
        }
    }
}
