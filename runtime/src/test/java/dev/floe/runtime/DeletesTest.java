package dev.floe.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import java.nio.file.Path;
import java.util.List;
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

/** A table with position and equality deletes rebuilds into exactly its visible rows, no deletes. */
class DeletesTest {
    @TempDir
    Path root;

    @Test
    void rebuiltTableHoldsExactlyTheVisibleRows() throws Exception {
        TableIdentifier id = TableIdentifier.of("db", "upserts");
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            catalog.createNamespace(Namespace.of("db"));
            Table table = catalog.buildTable(id, TestTables.SIMPLE)
                    .withProperty(TableProperties.FORMAT_VERSION, "2")
                    .create();
            DataFile first = TestTables.writeFile(table, TestTables.simpleRows(0, 10));
            table.newFastAppend().appendFile(first).commit();
            TestTables.append(table, TestTables.simpleRows(10, 10));

            // position deletes: rows 2 and 5 of the first file
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

            // equality deletes: ids 12, 13 and 17
            EqualityDeleteWriter<Record> equality =
                    factory.newEqDeleteWriter(files.newOutputFile(), FileFormat.PARQUET, null);
            try (equality) {
                for (long deleted : new long[] {12, 13, 17}) {
                    Record key = org.apache.iceberg.data.GenericRecord.create(idOnly);
                    key.setField("id", deleted);
                    equality.write(key);
                }
            }
            DeleteFile equalityDeletes = equality.toDeleteFile();
            table.newRowDelta()
                    .addDeletes(positionDeletes)
                    .addDeletes(equalityDeletes)
                    .commit();

            List<Long> visible = TestTables.read(table).stream()
                    .map(r -> (Long) r.getField("id"))
                    .sorted()
                    .collect(Collectors.toList());
            assertThat(visible).hasSize(15).doesNotContain(2L, 5L, 12L, 13L, 17L);
            List<String> before = TestTables.fingerprints(table);

            CompactReport report = new Compactor(RebuildSettings.defaults()).compactTable(catalog, id, Prune.NONE);

            Table rebuilt = catalog.loadTable(id);
            assertThat(rebuilt.snapshots()).hasSize(1);
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(before);
            assertThat(report.rows()).isEqualTo(15);
            try (var tasks = rebuilt.newScan().planFiles()) {
                tasks.forEach(task -> assertThat(task.deletes()).isEmpty());
            }
            assertThat(rebuilt.currentSnapshot().summary()).containsEntry("total-delete-files", "0");
        }
    }
}
