package dev.floe.runtime.rows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.rebuild.CompactReport;
import dev.floe.runtime.rebuild.CompactionProbe;
import dev.floe.runtime.rebuild.CompactionStep;
import dev.floe.runtime.rebuild.Compactor;
import dev.floe.runtime.testing.CatalogFixture;
import dev.floe.runtime.testing.RowDeltas;
import dev.floe.runtime.testing.TestTables;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;

/**
 * A rebuild copies the row groups of files that are already what it would write (large row groups,
 * ZSTD, the table's schema, no delete) into its new files, byte for byte, and re-encodes every other
 * file; either way every value survives exactly, and a delete committed meanwhile lands on its row.
 */
class RowGroupCopyTest extends CatalogFixture {
    /** Files of 600 rows have row groups of at least half the target rows: copied. */
    static final RebuildSettings SETTINGS = RebuildSettings.defaults().with(s -> {
        s.rowGroupRows = 1_000;
        s.reclaimGrace = Duration.ZERO;
    });

    private static List<Record> rows(Schema schema, long from, int count) {
        Random random = new Random(from);
        List<Record> rows = new ArrayList<>();
        for (long id = from; id < from + count; id++) {
            rows.add(TypesRoundTripTest.row(schema, id, random));
        }
        return rows;
    }

    private CompactReport rebuildWhole(CompactionProbe probe) {
        return new Compactor(SETTINGS, new WriterGate(), new HandleRegistry(0), probe, Clock.systemUTC())
                .compactTable(new dev.floe.runtime.seam.MapDbRebuildCatalog(catalog), EVENTS, Prune.NONE, true);
    }

    /** Four files of 600 rows, ids 0 to 2,399, one append each. */
    private static List<DataFile> fourFilesOf600Rows(Table table) {
        List<DataFile> files = new ArrayList<>();
        for (int f = 0; f < 4; f++) {
            DataFile file = TestTables.writeFile(table, TestTables.simpleRows(f * 600L, 600));
            table.newFastAppend().appendFile(file).commit();
            files.add(file);
        }
        return files;
    }

    /** The data files of {@code table}'s current snapshot, with their column metrics. */
    private static List<DataFile> filesWithStats(Table table) throws IOException {
        List<DataFile> files = new ArrayList<>();
        try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
                table.newScan().includeColumnStats().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        }
        return files;
    }

    private static List<BlockMetaData> rowGroups(DataFile file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.location()), new org.apache.hadoop.conf.Configuration()))) {
            return reader.getFooter().getBlocks();
        }
    }

    @Test
    void filesOfLargeRowGroupsAreCopiedAndEveryValueOfEveryTypeSurvives() throws IOException {
        Table table = catalog.createTable(EVENTS, TypesRoundTripTest.ALL_TYPES);
        List<DataFile> sources = new ArrayList<>();
        for (int f = 0; f < 6; f++) {
            DataFile file = TestTables.writeFile(table, rows(table.schema(), f * 600L, 600));
            table.newFastAppend().appendFile(file).commit();
            sources.add(file);
        }
        List<String> before = TestTables.fingerprints(table);

        CompactReport report = rebuildWhole(CompactionProbe.NONE);

        Table rebuilt = catalog.loadTable(EVENTS);
        assertThat(TestTables.fingerprints(rebuilt))
                .as("every row, field by field")
                .isEqualTo(before);
        assertThat(report.copiedFiles()).isEqualTo(6);
        assertThat(report.copiedBytes())
                .isEqualTo(sources.stream().mapToLong(DataFile::fileSizeInBytes).sum());
        assertThat(report.rows()).isEqualTo(3_600);
        List<DataFile> files = filesWithStats(rebuilt);
        assertThat(files).hasSize(1);
        DataFile packed = files.get(0);
        assertThat(RollingParquetWriter.wroteByRebuild(packed.location())).isTrue();
        List<BlockMetaData> groups = rowGroups(packed);
        assertThat(groups).as("each source's row group, as it was").hasSize(6);
        List<Long> sourceSizes = new ArrayList<>();
        for (DataFile source : sources) {
            sourceSizes.add(rowGroups(source).get(0).getCompressedSize());
        }
        assertThat(groups.stream().map(BlockMetaData::getCompressedSize).toList())
                .as("the sources' column chunks, byte for byte (in the order the scan listed them)")
                .containsExactlyInAnyOrderElementsOf(sourceSizes);
        assertThat(groups).allSatisfy(group -> {
            assertThat(group.getRowCount()).isEqualTo(600);
            assertThat(group.getColumns())
                    .allSatisfy(c -> assertThat(c.getCodec()).isEqualTo(CompressionCodecName.ZSTD));
        });
        // Iceberg's metrics, from the new footer: what the sources' add up to
        assertThat(packed.recordCount()).isEqualTo(3_600);
        int id = table.schema().findField("id").fieldId();
        assertThat((Long) Conversions.fromByteBuffer(
                        Types.LongType.get(), packed.lowerBounds().get(id)))
                .isZero();
        assertThat((Long) Conversions.fromByteBuffer(
                        Types.LongType.get(), packed.upperBounds().get(id)))
                .isEqualTo(3_599);
        int b = table.schema().findField("b").fieldId();
        assertThat(packed.nullValueCounts().get(b))
                .isEqualTo(sources.stream()
                        .mapToLong(f -> f.nullValueCounts().get(b))
                        .sum());
        assertThat(packed.splitOffsets()).hasSize(6);
    }

    @Test
    void aCopiedFileKeepsBoundsThatFindARowBesideANaN() throws IOException {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "x", Types.DoubleType.get()));
        Table table = catalog.createTable(EVENTS, schema);
        for (int f = 0; f < 2; f++) {
            List<Record> rows = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                Record row = org.apache.iceberg.data.GenericRecord.create(schema);
                row.setField("id", f * 600L + i);
                // the second file: one row far above the first's values, and a NaN in the same chunk
                row.setField("x", f == 1 && i == 7 ? 500.0 : f == 1 && i == 8 ? Double.NaN : i % 10 * 1.0);
                rows.add(row);
            }
            TestTables.append(table, rows);
        }

        CompactReport report = rebuildWhole(CompactionProbe.NONE);

        assertThat(report.copiedFiles()).isEqualTo(2);
        Table rebuilt = catalog.loadTable(EVENTS);
        List<Record> found = new ArrayList<>();
        try (org.apache.iceberg.io.CloseableIterable<Record> rows = org.apache.iceberg.data.IcebergGenerics.read(
                        rebuilt)
                .where(org.apache.iceberg.expressions.Expressions.greaterThan("x", 100.0))
                .build()) {
            rows.forEach(found::add);
        }
        // the file is not pruned away: its row of 500 is read (the reader's own filter also lets NaN by)
        assertThat(found.stream().map(r -> r.getField("id")))
                .as("the row of x = 500 is found through the file's bounds")
                .contains(607L);
        List<DataFile> files = filesWithStats(rebuilt);
        assertThat(files).hasSize(1);
        assertThat((Double) Conversions.fromByteBuffer(
                        Types.DoubleType.get(), files.get(0).upperBounds().get(2)))
                .isEqualTo(500.0);
        assertThat(files.get(0).nanValueCounts()).containsEntry(2, 1L);
    }

    @Test
    void smallRowGroupsAnotherCodecOrAnEarlierSchemaAreReencoded() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int f = 0; f < 12; f++) {
            TestTables.append(table, TestTables.simpleRows(f * 600L - 7_200, 600)); // copied
        }
        for (int f = 0; f < 3; f++) {
            TestTables.append(table, TestTables.simpleRows(1_800 + f * 100L, 100)); // row groups too small
        }
        table.updateProperties()
                .set(TableProperties.PARQUET_COMPRESSION, "snappy")
                .commit();
        for (int f = 0; f < 2; f++) {
            TestTables.append(table, TestTables.simpleRows(2_100 + f * 600L, 600)); // another codec
        }
        table.updateProperties()
                .set(TableProperties.PARQUET_COMPRESSION, "zstd")
                .commit();
        List<String> before = TestTables.fingerprints(table);

        CompactReport first = rebuildWhole(CompactionProbe.NONE);

        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(before);
        assertThat(first.copiedFiles())
                .as("the twelve files of 600 rows in ZSTD")
                .isEqualTo(12);
        assertThat(first.rows()).isEqualTo(8_700);
        assertThat(RowDeltas.dataFiles(catalog.loadTable(EVENTS)))
                .as("the rest encoded and copied on after them: one file")
                .hasSize(1);

        // a column added: files of the earlier schema are re-encoded, the new ones copied
        table = catalog.loadTable(EVENTS);
        table.updateSchema().addColumn("note", Types.StringType.get()).commit();
        for (int f = 0; f < 20; f++) {
            List<Record> rows = new ArrayList<>();
            for (long i = 0; i < 600; i++) {
                Record row = org.apache.iceberg.data.GenericRecord.create(table.schema());
                row.setField("id", 10_000 + f * 600L + i);
                row.setField("note", "n" + i);
                rows.add(row);
            }
            TestTables.append(table, rows);
        }
        List<String> evolved = TestTables.fingerprints(catalog.loadTable(EVENTS));

        CompactReport second = rebuildWhole(CompactionProbe.NONE);

        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(evolved);
        assertThat(second.copiedFiles())
                .as("the twenty files of the new schema")
                .isEqualTo(20);
        assertThat(second.rows()).isEqualTo(8_700 + 12_000);
    }

    @Test
    void aDeleteOfACopiedFileCommittedDuringTheRebuildLandsOnItsRow() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        List<DataFile> files = fourFilesOf600Rows(table);
        Table host = catalog.loadTableUncached(EVENTS);
        CompactionProbe probe = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                host.refresh();
                host.newRowDelta()
                        .addDeletes(RowDeltas.positionDeletes(host, files.get(2), 0, 599))
                        .commit();
            }
        };

        CompactReport report = rebuildWhole(probe);

        assertThat(report.attempts()).as("rebased, not started again").isEqualTo(1);
        assertThat(report.copiedFiles()).isEqualTo(4);
        List<Record> expected = new ArrayList<>(TestTables.simpleRows(0, 2_400));
        expected.removeIf(r -> List.of(1_200L, 1_799L).contains((Long) r.getField("id")));
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS)))
                .isEqualTo(TestTables.fingerprints(expected, TestTables.SIMPLE));
    }

    @Test
    void aDeleteOfAnEncodedRowCommittedDuringTheRebuildLandsOnItsRowInTheFileItWasCopiedOnTo() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        fourFilesOf600Rows(table);
        List<DataFile> small = new ArrayList<>();
        for (int f = 0; f < 2; f++) {
            DataFile file = TestTables.writeFile(table, TestTables.simpleRows(2_400 + f * 100L, 100));
            table.newFastAppend().appendFile(file).commit();
            small.add(file);
        }
        Table host = catalog.loadTableUncached(EVENTS);
        CompactionProbe probe = (step, id) -> {
            if (step == CompactionStep.ROWS_WRITTEN) {
                host.refresh();
                host.newRowDelta()
                        .addDeletes(RowDeltas.positionDeletes(host, small.get(1), 0, 42))
                        .commit();
            }
        };

        CompactReport report = rebuildWhole(probe);

        assertThat(report.attempts()).as("rebased, not started again").isEqualTo(1);
        assertThat(report.copiedFiles()).isEqualTo(4);
        assertThat(RowDeltas.dataFiles(catalog.loadTable(EVENTS))).hasSize(1);
        List<Record> expected = new ArrayList<>(TestTables.simpleRows(0, 2_600));
        expected.removeIf(r -> List.of(2_500L, 2_542L).contains((Long) r.getField("id")));
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS)))
                .isEqualTo(TestTables.fingerprints(expected, TestTables.SIMPLE));
    }

    @Test
    void aFileADeleteMayApplyToIsReencodedWithItApplied() throws IOException {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        List<DataFile> files = fourFilesOf600Rows(table);
        table.newRowDelta()
                .addDeletes(RowDeltas.positionDeletes(table, files.get(0), 10))
                .commit();
        long withoutDeletes;
        try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
                catalog.loadTable(EVENTS).newScan().planFiles()) {
            withoutDeletes = java.util.stream.StreamSupport.stream(tasks.spliterator(), false)
                    .filter(task -> task.deletes().isEmpty())
                    .count();
        }

        CompactReport report = rebuildWhole(CompactionProbe.NONE);

        assertThat(withoutDeletes)
                .as("the delete names no single file: Iceberg says it may apply to each")
                .isLessThan(4);
        assertThat(report.copiedFiles()).isEqualTo(withoutDeletes < 2 ? 0 : withoutDeletes);
        List<Record> expected = new ArrayList<>(TestTables.simpleRows(0, 2_400));
        expected.removeIf(r -> (Long) r.getField("id") == 10L);
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS)))
                .isEqualTo(TestTables.fingerprints(expected, TestTables.SIMPLE));
        assertThat(RowDeltas.deleteFiles(catalog.loadTable(EVENTS))).isEmpty();
    }

    @Test
    void withTheCopyTurnedOffEveryFileIsReencoded() throws IOException {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int f = 0; f < 3; f++) {
            TestTables.append(table, TestTables.simpleRows(f * 600L, 600));
        }
        List<String> before = TestTables.fingerprints(table);

        CompactReport report = new Compactor(SETTINGS.with(s -> s.copyRowGroups = false))
                .compactTable(new dev.floe.runtime.seam.MapDbRebuildCatalog(catalog), EVENTS, Prune.NONE, true);

        assertThat(report.copiedFiles()).isZero();
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(before);
        List<DataFile> files = RowDeltas.dataFiles(catalog.loadTable(EVENTS));
        assertThat(files).hasSize(1);
        assertThat(rowGroups(files.get(0)))
                .as("row groups of about 1,000 rows, encoded anew")
                .hasSizeLessThan(3);
    }

    @Test
    void rowGroupsAreLargeWhenEachButTheLastHoldsHalfTheTargetRows() {
        assertThat(RowGroupCopy.largeRowGroups(new long[] {1_000, 1_000, 10}, 2_010, 1_000))
                .isTrue();
        assertThat(RowGroupCopy.largeRowGroups(new long[] {600}, 600, 1_000)).isTrue();
        assertThat(RowGroupCopy.largeRowGroups(new long[] {499, 1_000}, 1_499, 1_000))
                .isFalse();
        assertThat(RowGroupCopy.largeRowGroups(new long[] {400}, 400, 1_000)).isFalse();
        assertThat(RowGroupCopy.largeRowGroups(new long[] {1_000}, 999, 1_000))
                .as("a footer that disagrees with the manifest")
                .isFalse();
        assertThat(RowGroupCopy.largeRowGroups(new long[0], 0, 1_000)).isFalse();
    }

    @Test
    void aLoneCopyableFileIsNotCopiedOntoItself() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        TestTables.append(table, TestTables.simpleRows(0, 600));
        TestTables.append(table, TestTables.simpleRows(600, 50));
        List<String> before = TestTables.fingerprints(table);

        CompactReport report = rebuildWhole(CompactionProbe.NONE);

        assertThat(report.copiedFiles()).isZero();
        assertThat(TestTables.fingerprints(catalog.loadTable(EVENTS))).isEqualTo(before);
        assertThat(RowDeltas.dataFiles(catalog.loadTable(EVENTS))).hasSize(1);
    }
}
