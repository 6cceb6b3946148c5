package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.testing.TestTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A child JVM at -Xmx64m rebuilds a table whose Parquet data is several times its heap: memory
 * stays at about one row group, whatever the table size, unpartitioned or partitioned, when every
 * row goes to a partition of a newer spec (a bounded number of files open at once), and when every
 * file's row groups are copied as they are.
 */
class LowHeapRebuildTest {
    static final Schema WIDE = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "payload", Types.BinaryType.get()));
    static final int HEAP_MB = 64;

    @TempDir
    Path root;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unpartitioned", "bucketed", "earlier spec", "row groups copied"})
    void rebuildsATableSeveralTimesTheHeap(String layout) throws Exception {
        TableIdentifier id = TableIdentifier.of("db", "big");
        long rows = 0;
        long bytes;
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            catalog.createNamespace(Namespace.of("db"));
            Table table = catalog.buildTable(id, WIDE)
                    .withPartitionSpec(
                            layout.equals("bucketed")
                                    ? org.apache.iceberg.PartitionSpec.builderFor(WIDE)
                                            .bucket("id", 4)
                                            .build()
                                    : org.apache.iceberg.PartitionSpec.unpartitioned())
                    .withProperty(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Integer.toString(4 << 20))
                    .create();
            Random random = new Random(7);
            for (int file = 0; file < 28; file++) {
                List<Record> batch = new ArrayList<>();
                for (int i = 0; i < 50_000; i++) {
                    GenericRecord row = GenericRecord.create(table.schema());
                    row.setField("id", rows++);
                    byte[] payload = new byte[160];
                    random.nextBytes(payload);
                    row.setField("payload", java.nio.ByteBuffer.wrap(payload));
                    batch.add(row);
                }
                if (layout.equals("bucketed")) {
                    PartitionedRebuildTest.appendByPartition(table, batch);
                } else {
                    AppendFiles append = table.newFastAppend();
                    append.appendFile(TestTables.writeFile(table, batch));
                    append.commit();
                }
            }
            if (layout.equals("earlier spec")) {
                table.updateSpec()
                        .addField(org.apache.iceberg.expressions.Expressions.bucket("id", 4))
                        .commit();
            }
            table.refresh();
            bytes = Long.parseLong(table.currentSnapshot().summary().get("total-files-size"));
        }
        assertThat(bytes).isGreaterThan(3L * HEAP_MB << 20);

        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(
                        javaBin,
                        "-Xmx" + HEAP_MB + "m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        LowHeapRebuild.class.getName(),
                        root.toString(),
                        id.toString(),
                        Long.toString(8L << 20),
                        Long.toString(64L << 20),
                        // the files' row groups of about 25,000 rows count as large: they are copied
                        layout.equals("row groups copied") ? "20000" : "131072")
                .redirectErrorStream(true)
                .redirectOutput(root.resolve("child.log").toFile())
                .start();
        assertThat(child.waitFor(3, TimeUnit.MINUTES))
                .as("child finished in time")
                .isTrue();
        String log = java.nio.file.Files.readString(root.resolve("child.log"), StandardCharsets.UTF_8);
        assertThat(child.exitValue()).as(log).isZero();
        assertThat(log).contains("rows=" + rows + " ");
        if (layout.equals("row groups copied")) {
            assertThat(log).as("every file's row groups copied").contains(" copied=28 ");
        } else {
            assertThat(log).contains(" copied=0 ");
        }
        System.out.println("low-heap rebuild of " + bytes + " data bytes: "
                + log.lines().filter(l -> l.startsWith("rows=")).findFirst().orElse(""));

        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            Table rebuilt = catalog.loadTable(id);
            TestTables.rebuiltSnapshot(rebuilt);
            assertThat(rebuilt.currentSnapshot().summary()).containsEntry("total-records", Long.toString(rows));
            int files = Integer.parseInt(rebuilt.currentSnapshot().summary().get("total-data-files"));
            boolean oneSpec = layout.equals("unpartitioned") || layout.equals("row groups copied");
            assertThat(files).isBetween(oneSpec ? 3 : 4, oneSpec ? 6 : 12);
            if (!oneSpec) {
                PartitionedRebuildTest.assertEveryRowIsInItsFilesPartition(rebuilt);
                assertThat(PartitionedRebuildTest.partitionsOf(rebuilt)).hasSize(4);
            }
        }
    }
}
