package dev.floe.samples;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** What a table holds, as the sample ingest checks it at the end: rows, ids, files, metadata bytes. */
public final class TableFacts {
    private TableFacts() {}

    /**
     * Rows and distinct ids read back by a full scan (every column, planning included): of the whole
     * table, and of the ids in {@code [from, to)} alone.
     */
    public record ReadBack(long rows, long distinctIds, long rowsInRange, long distinctInRange) {
        /**
         * Why the ids {@code firstId ..} of {@code ownRows} rows are not each read back exactly once,
         * or null; rows with other ids are other writers', not checked.
         */
        public String ownProblem(long firstId, long ownRows) {
            if (rowsInRange == ownRows && distinctInRange == ownRows) {
                return null;
            }
            return String.format(
                    java.util.Locale.ROOT,
                    "read back %d rows (%d distinct) with this run's ids %d..%d, expected %d",
                    rowsInRange,
                    distinctInRange,
                    firstId,
                    firstId + ownRows - 1,
                    ownRows);
        }
    }

    /** Reads every row of {@code table} back (all columns): counts rows and distinct ids, {@code [0, expectedRows)} the range. */
    public static ReadBack readBack(Table table, long expectedRows) throws IOException {
        return readBack(table, 0, expectedRows);
    }

    /** Reads every row of {@code table} back (all columns): counts rows and distinct ids, in {@code [from, to)} too. */
    public static ReadBack readBack(Table table, long from, long to) throws IOException {
        int dense = (int) Math.min(Math.max(0, to - from), Integer.MAX_VALUE);
        BitSet seen = new BitSet(dense);
        Set<Long> others = new HashSet<>();
        long rows = 0;
        long inRange = 0;
        // a full scan: every column of every row, though only the ids are checked
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                rows++;
                long id = (Long) record.getField("id");
                if (id >= from && id - from < dense) {
                    inRange++;
                    seen.set((int) (id - from));
                } else {
                    others.add(id);
                }
            }
        }
        return new ReadBack(rows, seen.cardinality() + (long) others.size(), inRange, seen.cardinality());
    }

    /**
     * One version of a table: its snapshots, the data files a scan of its current snapshot plans, and
     * the manifests (data and delete) that scan opens.
     */
    public record Version(String metadataLocation, int snapshots, long dataFiles, int manifests) {}

    /**
     * The snapshots and data files of one version of {@code table}: counted again until the handle
     * showed the same version before and after the count, since whoever rewrites the table (floe's
     * rebuild) may move the handle to a new version in between.
     */
    public static Version version(Table table) throws IOException {
        TableOperations ops = ((HasTableOperations) table).operations();
        while (true) {
            TableMetadata before = ops.current();
            long files = dataFiles(table);
            TableMetadata after = ops.current();
            if (before.metadataFileLocation().equals(after.metadataFileLocation())) {
                int manifests = before.currentSnapshot() == null
                        ? 0
                        : before.currentSnapshot().allManifests(table.io()).size();
                return new Version(
                        before.metadataFileLocation(), before.snapshots().size(), files, manifests);
            }
        }
    }

    /** The data files a scan of the current snapshot plans. */
    public static long dataFiles(Table table) throws IOException {
        if (table.currentSnapshot() == null) {
            return 0;
        }
        long files = 0;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask ignored : tasks) {
                files++;
            }
        }
        return files;
    }

    /**
     * The versions a table holds and how many of them read back as their summaries say (append-only
     * tables): each snapshot read by id holds {@code total-records - total-position-deletes} rows,
     * each id once, and no fewer than an older snapshot; and how many of them floe rewrote onto a
     * later layout ({@code floe.rewritten-onto}).
     */
    public record Versions(int versions, int exact, int rewritten) {}

    /** {@link Versions} of {@code table}, every version read whole. */
    public static Versions versions(Table table) throws IOException {
        List<Snapshot> snapshots = new java.util.ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        snapshots.sort(java.util.Comparator.comparingLong(Snapshot::sequenceNumber));
        int exact = 0;
        int rewritten = 0;
        long previous = 0;
        for (Snapshot snapshot : snapshots) {
            if (snapshot.summary() != null && snapshot.summary().containsKey("floe.rewritten-onto")) {
                rewritten++;
            }
            long expected = summaryLong(snapshot, SnapshotSummary.TOTAL_RECORDS_PROP)
                    - Math.max(0, summaryLong(snapshot, SnapshotSummary.TOTAL_POS_DELETES_PROP));
            Set<Long> ids = new HashSet<>();
            long rows = 0;
            try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                    .useSnapshot(snapshot.snapshotId())
                    .build()) {
                for (Record record : records) {
                    rows++;
                    ids.add((Long) record.getField("id"));
                }
            }
            if (rows == expected && ids.size() == rows && rows >= previous) {
                exact++;
            }
            previous = rows;
        }
        return new Versions(snapshots.size(), exact, rewritten);
    }

    /** A whole-number snapshot summary value; 0 without a snapshot, -1 when absent. */
    public static long summaryLong(Snapshot snapshot, String key) {
        if (snapshot == null) {
            return 0;
        }
        String value = snapshot.summary() == null ? null : snapshot.summary().get(key);
        try {
            return value == null ? -1 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Bytes of every file under {@code <location>/metadata} on local disk; -1 if not local. */
    public static long metadataBytes(String location) throws IOException {
        Path root;
        if (location.startsWith("file:")) {
            root = Paths.get(java.net.URI.create(location.replaceFirst("^file:/*", "file:///")));
        } else if (location.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
            return -1;
        } else {
            root = Paths.get(location);
        }
        Path metadata = root.resolve("metadata");
        if (!Files.isDirectory(metadata)) {
            return 0;
        }
        // someone (floe's reclaim, Iceberg's clean-up) may delete files while we walk: a file that
        // vanished between listing and reading its size counts as gone, never as an error
        long[] total = {0};
        Files.walkFileTree(metadata, new SimpleFileVisitor<Path>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    total[0] += attrs.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
        return total[0];
    }

    /**
     * The history on {@code main} of a table: how many of its snapshots rewrote data files (a
     * {@code replace} that added or removed data files: a compaction, by anyone), and how many
     * snapshots are above the newest of them (above the oldest snapshot when none did).
     */
    public record Rewrites(int rewrites, int sinceRewrite) {}

    /** {@link Rewrites} of {@code table}'s current version. */
    public static Rewrites rewrites(Table table) {
        int rewrites = 0;
        int since = -1;
        int ancestors = 0;
        for (Snapshot s = table.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (rewritesData(s)) {
                rewrites += 1;
                since = since < 0 ? ancestors : since;
            }
            ancestors += 1;
        }
        return new Rewrites(rewrites, since >= 0 ? since : Math.max(0, ancestors - 1));
    }

    /**
     * Whether the head of {@code table} was committed on someone's rewrite of it: below it, past
     * rewrites of manifests only, is a snapshot that rewrote data files.
     */
    public static boolean onARewrite(Table table) {
        Snapshot head = table.currentSnapshot();
        Snapshot below = head == null || head.parentId() == null ? null : table.snapshot(head.parentId());
        while (below != null && !rewritesData(below) && DataOperations.REPLACE.equals(below.operation())) {
            below = below.parentId() == null ? null : table.snapshot(below.parentId());
        }
        return below != null && rewritesData(below);
    }

    /** Whether {@code snapshot} is a {@code replace} that added or removed data files. */
    static boolean rewritesData(Snapshot snapshot) {
        Map<String, String> summary = snapshot.summary();
        return DataOperations.REPLACE.equals(snapshot.operation())
                && summary != null
                && (!"0".equals(summary.getOrDefault(SnapshotSummary.ADDED_FILES_PROP, "0"))
                        || !"0".equals(summary.getOrDefault(SnapshotSummary.DELETED_FILES_PROP, "0")));
    }

    /** How many items, without keeping them. */
    public static int count(Iterable<?> items) {
        if (items == null) {
            return 0;
        }
        if (items instanceof Collection) {
            return ((Collection<?>) items).size();
        }
        int n = 0;
        for (Object ignored : items) {
            n++;
        }
        return n;
    }
}
