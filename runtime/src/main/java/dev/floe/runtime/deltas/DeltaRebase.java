package dev.floe.runtime.deltas;

import dev.floe.runtime.install.RebuiltFiles;
import dev.floe.runtime.rows.DeleteFileKey;
import dev.floe.runtime.rows.DeleteLoaders;
import dev.floe.runtime.seam.RebuildJournal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Step 4 of a rebuild: rebases what committed on the live table since the pin onto the rebuilt
 * files, commit by commit, oldest first ({@link CatchUp} lists them), so that the rebuilt table
 * holds exactly the rows the live table holds. What it keeps is the rebuilt table's content: the
 * pinned files (kept and rewritten) with the deletes kept with them, and the files carried since.
 *
 * <ul>
 *   <li>data files added: carried as they are;
 *   <li>a position delete or deletion vector of a rewritten file: translated through the {@link
 *       CompactionMap} to the rows' new places ({@link RebasedDeletes}); positions of rows the
 *       rebuild dropped vanish. One of a kept or carried file: carried as it is;
 *   <li>an equality delete: carried as it is (it still applies to every pinned row), and resolved
 *       to positions in the carried files committed before it ({@link EqualityResolution});
 *   <li>a data file removed whole: a carried or kept one leaves the rebuilt table; a rewritten one
 *       has every row it put in the rebuilt files deleted (its runs);
 *   <li>a delete file removed: one carried or kept leaves; a deletion vector the rebuild applied
 *       may be replaced by a newer one of the same data file in the same commit (that is how a
 *       vector grows); any other undoes a delete the rebuild applied, and the rebuild starts again.
 * </ul>
 * A rewrite by another writer ({@code replace}), and any row delta on a format-1 table, start the
 * rebuild again; so do schema, spec, sort-order and format changes ({@link CatchUp}).
 */
public final class DeltaRebase {
    private final Table live;
    private final int specId;
    private final CompactionMap map;
    private final Map<String, DataFile> pinned = new LinkedHashMap<>();
    private final Map<String, DeleteFile> pinnedDeletes = new LinkedHashMap<>();
    private final Map<String, DataFile> carried = new LinkedHashMap<>();
    private final Map<String, DeleteFile> carriedDeletes = new LinkedHashMap<>();
    /** Delete files (by {@link DeleteFileKey}) whose positions were translated into {@link #rebased}. */
    private final Set<String> translated = new HashSet<>();

    private final Set<String> removedData = new HashSet<>();
    private final Set<String> pinnedApplied;
    private final boolean routed;
    private final RebasedDeletes rebased;
    private final EqualityResolution equality;
    private final BaseDeleteLoader loader;
    private int commits;

    /**
     * @param kept the pinned data files the rebuild keeps as they are
     * @param keptDeletes the delete files kept with them
     * @param applied every delete file of the pinned snapshot that the rebuild applied (those of
     *     rewritten files not kept with a kept file), by {@link DeleteFileKey}
     * @param routed whether the rebuild routes an earlier spec's rows into the current spec
     */
    public DeltaRebase(
            Table live,
            Table target,
            TableMetadata base,
            List<DataFile> kept,
            List<DeleteFile> keptDeletes,
            List<DataFile> written,
            CompactionMap map,
            Set<String> applied,
            boolean routed,
            RebuildJournal journal) {
        this.live = live;
        this.specId = base.spec().specId();
        this.map = map;
        kept.forEach(file -> pinned.put(file.location(), file));
        written.forEach(file -> pinned.put(file.location(), file));
        keptDeletes.forEach(file -> pinnedDeletes.put(DeleteFileKey.of(file), file));
        this.pinnedApplied = applied;
        this.routed = routed;
        this.rebased = new RebasedDeletes(target, base.formatVersion(), journal);
        this.equality = new EqualityResolution(live);
        this.loader = DeleteLoaders.onThisThread(file -> live.io().newInputFile(file.location()));
    }

    /** Rebases the commits from {@code from} to {@code to}; the reason to start again, or null. */
    public String since(TableMetadata from, TableMetadata to) {
        List<Snapshot> newer = new ArrayList<>();
        String conflict = CatchUp.conflict(from, to, newer);
        if (conflict != null) {
            return conflict;
        }
        for (Snapshot commit : newer) {
            String reason = apply(commit);
            if (reason != null) {
                return "snapshot " + commit.snapshotId() + " " + reason;
            }
            commits += 1;
        }
        return null;
    }

    private String apply(Snapshot commit) {
        SnapshotFileChanges changes = SnapshotFileChanges.of(live, commit);
        for (DataFile added : changes.addedData) {
            if (added.specId() != specId) {
                return "adds data file " + added.location() + " of spec " + added.specId() + ", not the current one";
            }
            carried.put(added.location(), added.copy());
        }
        for (DataFile removed : changes.removedData) {
            String reason = removeData(removed.location());
            if (reason != null) {
                return reason;
            }
            removedData.add(removed.location());
        }
        Set<String> grown = new HashSet<>();
        for (DeleteFile added : changes.addedDeletes) {
            if (added.specId() != specId) {
                return "adds delete file " + added.location() + " of spec " + added.specId() + ", not the current one";
            }
            String reason = addDelete(added.copy());
            if (reason != null) {
                return reason;
            }
            String referenced = ContentFileUtil.referencedDataFileLocation(added);
            if (referenced != null) {
                grown.add(referenced);
            }
        }
        for (DeleteFile removed : changes.removedDeletes) {
            String reason = removeDelete(removed, grown);
            if (reason != null) {
                return reason;
            }
        }
        return null;
    }

    private String removeData(String location) {
        if (carried.remove(location) != null) {
            rebased.forget(location);
            return null;
        }
        if (map.isKept(location)) {
            pinned.remove(location);
            return null;
        }
        if (map.isMapped(location)) {
            for (CompactionMap.Run run : map.runsOf(location)) {
                rebased.deleteRange(run.target(), partitionOf(run.target()), run.targetStart(), run.length());
            }
            return null;
        }
        if (map.isUnmapped(location)) {
            return "removes " + location + ", whose rows this rebuild routed to the current spec without a map";
        }
        return null; // neither pinned nor carried: it was not in the table this rebuild sees
    }

    /**
     * A delete file a commit removed. Fine when it leaves as it came (carried or kept as it is), when
     * a larger vector of the same data file replaces it in the same commit ({@code grown}: how
     * vectors grow), or when its data file left the table (Iceberg drops a removed file's vectors);
     * otherwise it undoes deletes the rebuild applied or rebased, and the rebuild starts again.
     */
    private String removeDelete(DeleteFile removed, Set<String> grown) {
        String key = DeleteFileKey.of(removed);
        String referenced = ContentFileUtil.referencedDataFileLocation(removed);
        boolean replacedOrGone = referenced != null && (grown.contains(referenced) || removedData.contains(referenced));
        DeleteFile carriedOne = carriedDeletes.remove(key);
        if (carriedOne != null) {
            boolean derived = carriedOne.content() == FileContent.EQUALITY_DELETES
                    || translated.contains(key)
                    || (referenced != null && rebased.touches(referenced));
            return derived && !replacedOrGone ? undoes(removed) : null;
        }
        if (pinnedDeletes.remove(key) != null) {
            return null;
        }
        if (rebased.replaces(key) || translated.contains(key) || pinnedApplied.contains(key)) {
            return replacedOrGone ? null : undoes(removed);
        }
        return null;
    }

    private static String undoes(DeleteFile removed) {
        return "removes delete file " + removed.location() + " without a replacement: it undoes deletes this"
                + " rebuild applied or rebased";
    }

    private String addDelete(DeleteFile delete) {
        String key = DeleteFileKey.of(delete);
        if (delete.content() == FileContent.EQUALITY_DELETES) {
            if (routed && live.specs().get(delete.specId()).isPartitioned()) {
                // on the live table it applies to files of its own spec only; the routed rows were not
                return "adds a partitioned equality delete while this rebuild routes an earlier spec's rows";
            }
            carriedDeletes.put(key, delete);
            equality.resolve(delete, carried, rebased);
            return null;
        }
        String referenced = ContentFileUtil.referencedDataFileLocation(delete);
        Collection<String> rewritten = referenced != null
                ? (map.rewritten().contains(referenced) ? List.of(referenced) : List.of())
                : rewrittenWithin(delete);
        for (String source : rewritten) {
            if (map.isUnmapped(source)) {
                return "deletes rows of " + source + ", whose rows this rebuild routed to the current spec without"
                        + " a map";
            }
            translate(delete, source);
            translated.add(key);
        }
        if (referenced == null ? namesFilesStillThere(delete) : rewritten.isEmpty()) {
            // it names files still in the rebuilt table: carried as it is (the names of rewritten
            // files it may also hold are in the table no more)
            carriedDeletes.put(key, delete);
            if (referenced != null) {
                rebased.touch(referenced);
            }
        }
        return null;
    }

    /** Row positions of {@code source} that {@code delete} deletes, at their new places. */
    private void translate(DeleteFile delete, String source) {
        PositionDeleteIndex positions = loader.loadPositionDeletes(List.of(delete), source);
        positions.forEach(pos -> {
            CompactionMap.Position moved = map.target(source, pos);
            if (moved != null) {
                rebased.delete(moved.file(), partitionOf(moved.file()), moved.position());
            }
        });
    }

    /** The rewritten sources a position delete naming several files may hold, by its path bounds. */
    private Collection<String> rewrittenWithin(DeleteFile delete) {
        return within(delete, map.rewritten());
    }

    /** Whether a position delete naming several files may name a kept or carried one, by its path bounds. */
    private boolean namesFilesStillThere(DeleteFile delete) {
        List<String> there = new ArrayList<>(carried.keySet());
        pinned.keySet().stream().filter(map::isKept).forEach(there::add);
        return !within(delete, there).isEmpty();
    }

    private static List<String> within(DeleteFile delete, Collection<String> locations) {
        int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
        String lower = bound(delete.lowerBounds(), pathId);
        String upper = bound(delete.upperBounds(), pathId);
        List<String> within = new ArrayList<>();
        for (String location : locations) {
            if ((lower == null || location.compareTo(lower) >= 0)
                    && (upper == null || location.compareTo(upper) <= 0)) {
                within.add(location);
            }
        }
        return within;
    }

    private static String bound(Map<Integer, java.nio.ByteBuffer> bounds, int fieldId) {
        if (bounds == null || bounds.get(fieldId) == null) {
            return null;
        }
        return Conversions.<CharSequence>fromByteBuffer(
                        org.apache.iceberg.types.Types.StringType.get(), bounds.get(fieldId))
                .toString();
    }

    private org.apache.iceberg.StructLike partitionOf(String location) {
        DataFile file = pinned.containsKey(location) ? pinned.get(location) : carried.get(location);
        return file == null ? null : file.partition();
    }

    /** Writes the deletes rebased so far (format 2: those of the next rounds go in files of their own). */
    public void flush() {
        rebased.flush(
                this::vectorOf, vector -> loader.loadPositionDeletes(List.of(vector), vector.referencedDataFile()));
        rebased.replaced().forEach(vector -> carriedDeletes.remove(DeleteFileKey.of(vector)));
    }

    /** The carried deletion vector of a data file, if any (format 3). */
    private DeleteFile vectorOf(String dataFile) {
        for (DeleteFile delete : carriedDeletes.values()) {
            if (ContentFileUtil.isDV(delete) && dataFile.equals(delete.referencedDataFile())) {
                return delete;
            }
        }
        return null;
    }

    /** The rebuilt table's content as rebased so far; call {@link #flush} first. */
    public RebuiltFiles content(int sinceFull) {
        List<DeleteFile> deletes = new ArrayList<>(carriedDeletes.values());
        deletes.addAll(rebased.files());
        return new RebuiltFiles(
                List.copyOf(pinned.values()),
                List.copyOf(pinnedDeletes.values()),
                List.copyOf(carried.values()),
                deletes,
                sinceFull);
    }

    public int commits() {
        return commits;
    }
}
