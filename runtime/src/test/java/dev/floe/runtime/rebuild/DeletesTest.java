package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table with position and equality deletes rebuilds into exactly its visible rows. A file whose
 * deletes are below {@link RebuildSettings#deleteRatio} is kept as it is, with its position deletes;
 * a file any equality delete applies to, or one deleted at or above the ratio, is rewritten with
 * its deletes applied; a full rebuild applies them all.
 */
class DeletesTest {
    static final TableIdentifier ID = TableIdentifier.of("db", "upserts");

    @TempDir
    Path root;

    /** Two files of ten rows: rows 2 and 5 of the first deleted by position, ids 12, 13 and 17 by equality. */
    private record Upserts(Table table, DataFile first, DataFile second, DeleteFile positions, List<String> rows) {}

    private Upserts upserts(MapDbCatalog catalog) throws Exception {
        catalog.createNamespace(Namespace.of("db"));
        Table table = catalog.buildTable(ID, TestTables.SIMPLE)
                .withProperty(TableProperties.FORMAT_VERSION, "2")
                .create();
        DataFile first = TestTables.writeFile(table, TestTables.simpleRows(0, 10));
        table.newFastAppend().appendFile(first).commit();
        DataFile second = TestTables.writeFile(table, TestTables.simpleRows(10, 10));
        table.newFastAppend().appendFile(second).commit();

        Schema idOnly = table.schema().select("id");
        GenericAppenderFactory factory =
                new GenericAppenderFactory(table.schema(), table.spec(), new int[] {1}, idOnly, null);
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1)
                .format(FileFormat.PARQUET)
                .build();
        PositionDeleteWriter<Record> positions =
                factory.newPosDeleteWriter(files.newOutputFile(), FileFormat.PARQUET, null);
        try (positions) {
            PositionDelete<Record> delete = PositionDelete.create();
            positions.write(delete.set(first.location(), 2, null));
            positions.write(delete.set(first.location(), 5, null));
        }
        DeleteFile positionDeletes = positions.toDeleteFile();

        EqualityDeleteWriter<Record> equality =
                factory.newEqDeleteWriter(files.newOutputFile(), FileFormat.PARQUET, null);
        try (equality) {
            for (long deleted : new long[] {12, 13, 17}) {
                Record key = org.apache.iceberg.data.GenericRecord.create(idOnly);
                key.setField("id", deleted);
                equality.write(key);
            }
        }
        table.newRowDelta()
                .addDeletes(positionDeletes)
                .addDeletes(equality.toDeleteFile())
                .commit();

        List<Long> visible = ids(table);
        assertThat(visible).hasSize(15).doesNotContain(2L, 5L, 12L, 13L, 17L);
        return new Upserts(table, first, second, positionDeletes, TestTables.fingerprints(table));
    }

    private static List<Long> ids(Table table) {
        return TestTables.read(table).stream()
                .map(r -> (Long) r.getField("id"))
                .sorted()
                .collect(Collectors.toList());
    }

    /** Settings whose target makes both ten-row files settled, so only deletes decide. */
    private static RebuildSettings settled(double deleteRatio) {
        return RebuildSettings.defaults().with(s -> {
            s.targetFileBytes = 1;
            s.deleteRatio = deleteRatio;
        });
    }

    private static Map<String, DeleteFile> deletesOf(Table table) throws Exception {
        Map<String, DeleteFile> deletes = new HashMap<>();
        try (var tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> task.deletes().forEach(d -> deletes.put(d.location(), d)));
        }
        return deletes;
    }

    private static List<String> dataFiles(Table table) throws Exception {
        List<String> paths = new ArrayList<>();
        try (var tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> paths.add(task.file().location()));
        }
        return paths;
    }

    @Test
    void aFileDeletedBelowTheRatioIsKeptWithItsPositionDeletesAndEqualityDeletesAreApplied() throws Exception {
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            Upserts upserts = upserts(catalog);

            CompactReport report = new Compactor(settled(0.3)).compactTable(catalog, ID, Prune.NONE);

            Table rebuilt = catalog.loadTable(ID);
            TestTables.rebuiltSnapshot(rebuilt);
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(upserts.rows());
            assertThat(report.keptFiles()).as("2 of 10 rows deleted: below 0.3").isEqualTo(1);
            assertThat(report.rows())
                    .as("the second file, equality deletes applied")
                    .isEqualTo(7);
            assertThat(dataFiles(rebuilt))
                    .contains(upserts.first().location())
                    .doesNotContain(upserts.second().location())
                    .hasSize(2);
            assertThat(deletesOf(rebuilt).keySet())
                    .containsExactly(upserts.positions().location());
            assertThat(rebuilt.currentSnapshot().summary())
                    .containsEntry("total-position-deletes", "2")
                    .containsEntry("total-equality-deletes", "0");

            // the kept position deletes apply to their file only: rows with those ids appended now stay
            TestTables.append(rebuilt, List.of(TestTables.simpleRow(2), TestTables.simpleRow(12)));
            assertThat(ids(rebuilt)).hasSize(17).containsOnlyOnce(2L, 12L).doesNotContain(5L, 13L, 17L);
        }
    }

    @Test
    void aFileDeletedAtOrAboveTheRatioIsRewrittenWithItsDeletesApplied() throws Exception {
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            Upserts upserts = upserts(catalog);

            CompactReport report = new Compactor(settled(0.2)).compactTable(catalog, ID, Prune.NONE);

            Table rebuilt = catalog.loadTable(ID);
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(upserts.rows());
            assertThat(report.keptFiles()).isZero();
            assertThat(report.rows()).isEqualTo(15);
            assertThat(dataFiles(rebuilt))
                    .doesNotContain(upserts.first().location(), upserts.second().location());
            assertThat(deletesOf(rebuilt)).isEmpty();
            assertThat(rebuilt.currentSnapshot().summary()).containsEntry("total-delete-files", "0");
        }
    }

    @Test
    void keptDeletesOfATableWhoseSpecIdTheScratchTableRenumbersAreAppliedInstead() throws Exception {
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            catalog.createNamespace(Namespace.of("db"));
            Table table = catalog.buildTable(ID, TestTables.SIMPLE)
                    .withPartitionSpec(org.apache.iceberg.PartitionSpec.builderFor(TestTables.SIMPLE)
                            .bucket("id", 2)
                            .build())
                    .withProperty(TableProperties.FORMAT_VERSION, "2")
                    .create();
            table.updateSpec().removeField("id_bucket").commit(); // spec 1, unpartitioned
            table.refresh();
            assertThat(table.spec().specId()).isEqualTo(1);
            DataFile first = TestTables.writeFile(table, TestTables.simpleRows(0, 10));
            table.newFastAppend().appendFile(first).commit();
            GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
            PositionDeleteWriter<Record> positions = factory.newPosDeleteWriter(
                    OutputFileFactory.builderFor(table, 1, 1)
                            .format(FileFormat.PARQUET)
                            .build()
                            .newOutputFile(),
                    FileFormat.PARQUET,
                    null);
            try (positions) {
                positions.write(PositionDelete.<Record>create().set(first.location(), 3, null));
            }
            table.newRowDelta().addDeletes(positions.toDeleteFile()).commit();
            List<String> before = TestTables.fingerprints(table);

            CompactReport report = new Compactor(settled(0.3)).compactTable(catalog, ID, Prune.NONE);

            Table rebuilt = catalog.loadTable(ID);
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(before).hasSize(9);
            assertThat(report.full())
                    .as("rewritten whole: the kept delete could not be listed")
                    .isTrue();
            assertThat(deletesOf(rebuilt)).isEmpty();
        }
    }

    @Test
    void aFullRebuildAppliesEveryDelete() throws Exception {
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            Upserts upserts = upserts(catalog);

            CompactReport report = new Compactor(RebuildSettings.defaults())
                    .compactTable(new MapDbRebuildCatalog(catalog), ID, Prune.NONE, true);

            Table rebuilt = catalog.loadTable(ID);
            TestTables.rebuiltSnapshot(rebuilt);
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(upserts.rows());
            assertThat(report.full()).isTrue();
            assertThat(report.rows()).isEqualTo(15);
            assertThat(deletesOf(rebuilt)).isEmpty();
            assertThat(rebuilt.currentSnapshot().summary()).containsEntry("total-delete-files", "0");
        }
    }
}
