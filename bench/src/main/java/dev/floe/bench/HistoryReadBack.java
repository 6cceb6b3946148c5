package dev.floe.bench;

import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * What a table's history holds at the end of a run, read as a downstream incremental reader reads
 * it: the ancestry of {@code main}, the current metadata file's size, and every row Iceberg's own
 * {@code IncrementalAppendScan} returns from the oldest snapshot still in that ancestry to the head,
 * against the rows the append snapshots in between say they added.
 */
final class HistoryReadBack {
    private HistoryReadBack() {}

    /** Adds historySnapshots=, sinceRebuild= (above the newest rebuilt snapshot), oldestAgeMs=, metadataJsonBytes=, incrementalRows=, incrementalExpected=, incrementalDistinct=. */
    static void into(Table table, Map<String, String> values) throws IOException {
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        values.put(
                "metadataJsonBytes",
                Long.toString(
                        table.io().newInputFile(metadata.metadataFileLocation()).getLength()));
        Snapshot oldest = null;
        int ancestors = 0;
        int sinceRebuild = -1;
        long expected = 0;
        for (Snapshot s = metadata.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : metadata.snapshot(s.parentId())) {
            if (sinceRebuild < 0 && s.summary().containsKey("floe.rebuild-of-snapshot")) {
                sinceRebuild = ancestors;
            }
            ancestors += 1;
            oldest = s;
            if (DataOperations.APPEND.equals(s.operation())) {
                expected += Long.parseLong(s.summary().getOrDefault("added-records", "0"));
            }
        }
        values.put("historySnapshots", Integer.toString(ancestors));
        values.put("sinceRebuild", Integer.toString(sinceRebuild < 0 ? ancestors : sinceRebuild));
        values.put(
                "oldestAgeMs",
                Long.toString(oldest == null ? 0 : System.currentTimeMillis() - oldest.timestampMillis()));
        long rows = 0;
        Set<Object> ids = new HashSet<>();
        if (oldest != null) {
            var scan = table.newIncrementalAppendScan().fromSnapshotInclusive(oldest.snapshotId());
            try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
                for (FileScanTask task : tasks) {
                    // an append's file has no deletes: its rows are what the reader gets
                    try (CloseableIterable<Record> records = Parquet.read(
                                    table.io().newInputFile(task.file().location()))
                            .project(table.schema())
                            .createReaderFunc(schema -> GenericParquetReaders.buildReader(table.schema(), schema))
                            .build()) {
                        for (Record record : records) {
                            rows += 1;
                            ids.add(record.getField("id"));
                        }
                    }
                }
            }
        }
        values.put("incrementalRows", Long.toString(rows));
        values.put("incrementalExpected", Long.toString(expected));
        values.put("incrementalDistinct", Integer.toString(ids.size()));
    }
}
