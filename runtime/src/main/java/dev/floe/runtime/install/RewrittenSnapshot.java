package dev.floe.runtime.install;

import dev.floe.runtime.rows.GenericParquetWriters;
import dev.floe.runtime.seam.RebuildJournal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.util.StructLikeMap;

/**
 * Writes one kept snapshot again over other files: the data files it is given (files of the
 * rebuilt layout, or its own where it must keep them), with position deletes for every row of them
 * that the version did not hold. The result is the same version of the table (same id, sequence
 * number, timestamp, schema, rows), to be installed in the original's place ({@link
 * HistoryRewrites}).
 *
 * <p>Its manifests and manifest list are made by Iceberg's own {@code RowDelta}, committed to
 * staged operations ({@link StagedOperations}) over the table with no snapshot, whose new snapshot
 * takes the original's id: its entries carry that id, and every data file and delete file the same
 * sequence number, so each delete applies to the data file it names. The snapshot installed is the
 * original with that manifest list, its summary's totals those of its new files ({@link
 * SnapshotJson#rewritten}). Every file is named to the rebuild's journal before it is written, in
 * blocks ({@link ReservedNames}): a rebuild may rewrite hundreds of versions of four files each.
 */
public final class RewrittenSnapshot {
    /** A data file the rewritten snapshot lists, and the positions of it that the version did not hold. */
    public record FileImage(DataFile file, PositionDeleteIndex deleted) {}

    /** A rewritten snapshot, and every file written for it. */
    public record Written(Snapshot snapshot, List<String> files) {}

    private static final List<String> TOTALS = List.of(
            SnapshotSummary.TOTAL_RECORDS_PROP,
            SnapshotSummary.TOTAL_FILE_SIZE_PROP,
            SnapshotSummary.TOTAL_DATA_FILES_PROP,
            SnapshotSummary.TOTAL_DELETE_FILES_PROP,
            SnapshotSummary.TOTAL_POS_DELETES_PROP,
            SnapshotSummary.TOTAL_EQ_DELETES_PROP);

    private final TableOperations liveOps;
    private final TableMetadata empty;
    private final RebuildJournal journal;
    private final ReservedNames manifests;
    private final ReservedNames deletes;

    /** A writer of rewritten snapshots of the table {@code liveOps} holds, as of {@code current}. */
    public RewrittenSnapshot(TableOperations liveOps, TableMetadata current, RebuildJournal journal) {
        this.liveOps = liveOps;
        this.empty = TableMetadata.buildFrom(current)
                .removeSnapshots(current.snapshots())
                .build();
        this.journal = journal;
        this.manifests = new ReservedNames(journal, "history", ".avro", liveOps::metadataFileLocation);
        this.deletes = new ReservedNames(
                journal,
                "history",
                ".parquet",
                name -> liveOps.locationProvider().newDataLocation(name));
    }

    /**
     * {@code original} over {@code files}: written, not installed. {@code rebuildOf} (the snapshot the
     * rebuild pinned) goes in its summary under {@link HistoryRewrites#REWRITTEN}.
     */
    public Written write(Snapshot original, List<FileImage> files, long rebuildOf) {
        List<String> started = new ArrayList<>();
        UnaryOperator<String> locate = fileName -> {
            String location;
            if (manifests.fits(fileName)) {
                location = manifests.next();
            } else {
                location = liveOps.metadataFileLocation("floe-" + fileName);
                journal.fileStarted(location);
            }
            started.add(location);
            return location;
        };
        try {
            StagedOperations staged = new StagedOperations(empty, liveOps, locate, original.snapshotId());
            Table table = new BaseTable(staged, "floe-history-of-" + empty.uuid());
            RowDelta delta = table.newRowDelta().scanManifestsWith(SameThread.EXECUTOR);
            files.forEach(image -> delta.addRows(image.file()));
            deletes(table, files, started).forEach(delta::addDeletes);
            delta.commit();
            Snapshot made = staged.current().snapshot(original.snapshotId());
            Map<String, String> summary =
                    new LinkedHashMap<>(original.summary() == null ? Map.of() : original.summary());
            for (String total : TOTALS) {
                String value = made.summary().get(total);
                if (value != null) {
                    summary.put(total, value);
                }
            }
            summary.put(HistoryRewrites.REWRITTEN, Long.toString(rebuildOf));
            summary.remove(HistoryRewrites.ROOTED);
            return new Written(SnapshotJson.rewritten(original, made.manifestListLocation(), summary), started);
        } catch (RuntimeException e) {
            // nothing references what was written so far: it goes now, not with the whole attempt
            for (String file : started) {
                try {
                    liveOps.io().deleteFile(file);
                } catch (RuntimeException gone) {
                    // never written
                }
            }
            throw e;
        }
    }

    /** One position-delete file per partition, of the rows each data file's version did not hold. */
    private List<DeleteFile> deletes(Table table, List<FileImage> files, List<String> started) {
        Map<Integer, StructLikeMap<List<FileImage>>> bySpec = new LinkedHashMap<>();
        for (FileImage image : files) {
            if (image.deleted().isEmpty()) {
                continue;
            }
            PartitionSpec spec = table.specs().get(image.file().specId());
            bySpec.computeIfAbsent(spec.specId(), id -> StructLikeMap.create(spec.partitionType()))
                    .computeIfAbsent(image.file().partition(), p -> new ArrayList<>())
                    .add(image);
        }
        List<List<FileImage>> byPartition = new ArrayList<>();
        bySpec.values().forEach(partitions -> byPartition.addAll(partitions.values()));
        PositionDelete<Record> delete = PositionDelete.create();
        List<DeleteFile> written = new ArrayList<>();
        for (List<FileImage> group : byPartition) {
            group.sort(Comparator.comparing(image -> image.file().location()));
            DataFile first = group.get(0).file();
            PartitionSpec spec = table.specs().get(first.specId());
            String location = deletes.next();
            started.add(location);
            EncryptedOutputFile out = liveOps.encryption().encrypt(liveOps.io().newOutputFile(location));
            PositionDeleteWriter<Record> writer = new GenericParquetWriters(table.schema(), spec)
                    .setAll(table.properties())
                    .positionDeleteWriter(out, first.partition());
            try (writer) {
                for (FileImage image : group) {
                    String path = image.file().location();
                    image.deleted().forEach(pos -> writer.write(delete.set(path, pos)));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot write the deletes of a rewritten snapshot", e);
            }
            written.add(writer.toDeleteFile());
        }
        return written;
    }
}
