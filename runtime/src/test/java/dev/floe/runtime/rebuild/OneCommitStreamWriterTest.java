package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildException;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.rows.RollingParquetWriter;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OneCommitStreamWriterTest {
    static final TableIdentifier T = TableIdentifier.of("db", "t");

    @TempDir
    Path root;

    MapDbCatalog catalog;
    Table table;

    @BeforeEach
    void open() {
        catalog = TestTables.catalog(root);
        catalog.createNamespace(Namespace.of("db"));
        table = catalog.createTable(T, TestTables.SIMPLE);
    }

    @AfterEach
    void close() throws Exception {
        catalog.close();
    }

    @Test
    void manyRolledFilesLandInOneSnapshot() throws Exception {
        RebuildSettings small = RebuildSettings.defaults()
                .with(s -> s.targetFileBytes = 64 * 1024)
                .with(s -> s.rowGroupRows = 5_000);

        OneCommitStreamWriter.Result result =
                new OneCommitStreamWriter(small).append(table, TestTables.simpleRows(0, 60_000), Prune.NONE);

        table.refresh();
        assertThat(result.files()).hasSizeGreaterThan(3);
        assertThat(table.snapshots()).hasSize(1);
        assertThat(result.rowsIn()).isEqualTo(60_000);
        assertThat(result.rowsOut()).isEqualTo(60_000);
        assertThat(TestTables.fingerprints(table))
                .isEqualTo(TestTables.fingerprints(TestTables.simpleRows(0, 60_000), table.schema()));
        for (DataFile file : result.files()) {
            try (ParquetFileReader reader = ParquetFileReader.open(
                    HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.location()), new Configuration()))) {
                for (BlockMetaData block : reader.getFooter().getBlocks()) {
                    assertThat(block.getColumns())
                            .allSatisfy(c -> assertThat(c.getCodec()).isEqualTo(CompressionCodecName.ZSTD));
                }
            }
        }
    }

    @Test
    void rowGroupsAimAtTheRowTarget() throws Exception {
        RebuildSettings settings = RebuildSettings.defaults().with(s -> s.rowGroupRows = 20_000);

        RollingParquetWriter.Result written =
                new RollingParquetWriter(table, settings, l -> {}).write(TestTables.simpleRows(0, 100_000), Prune.NONE);

        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(written.files().get(0).location()), new Configuration()))) {
            List<BlockMetaData> blocks = reader.getFooter().getBlocks();
            assertThat(blocks).hasSizeBetween(4, 7);
            assertThat(blocks.subList(0, blocks.size() - 1))
                    .allSatisfy(block -> assertThat(block.getRowCount()).isBetween(15_000L, 25_000L));
        }
    }

    @Test
    void emptyInputCommitsNothing() {
        OneCommitStreamWriter.Result result =
                new OneCommitStreamWriter(RebuildSettings.defaults()).append(table, List.of(), Prune.NONE);

        table.refresh();
        assertThat(result.files()).isEmpty();
        assertThat(table.currentSnapshot()).isNull();
    }

    @Test
    void pruneThatDropsEverythingCommitsNothing() {
        OneCommitStreamWriter.Result result = new OneCommitStreamWriter(RebuildSettings.defaults())
                .append(table, TestTables.simpleRows(0, 100), row -> true);

        table.refresh();
        assertThat(result.rowsIn()).isEqualTo(100);
        assertThat(result.rowsOut()).isZero();
        assertThat(table.currentSnapshot()).isNull();
        assertThat(TestTables.filesOnDisk(root.resolve("warehouse/db/t")))
                .allSatisfy(f -> assertThat(f).contains("/metadata/"));
    }

    @Test
    void pruneThatThrowsLeavesNoFile() {
        Prune explodes = row -> {
            throw new java.io.IOException("archive unreachable");
        };

        assertThatThrownBy(() -> new OneCommitStreamWriter(RebuildSettings.defaults())
                        .append(table, TestTables.simpleRows(0, 10), explodes))
                .isInstanceOf(RebuildException.class)
                .hasMessageContaining("prune")
                .hasMessageContaining("stopped")
                .hasRootCauseMessage("archive unreachable");

        assertThat(TestTables.filesOnDisk(root.resolve("warehouse/db/t")))
                .allSatisfy(f -> assertThat(f).contains("/metadata/"));
    }

    @Test
    void partitionedTableIsRefused() {
        Table partitioned = catalog.createTable(
                TableIdentifier.of("db", "p"),
                TestTables.SIMPLE,
                PartitionSpec.builderFor(TestTables.SIMPLE).identity("name").build());

        assertThatThrownBy(() -> new OneCommitStreamWriter(RebuildSettings.defaults())
                        .append(partitioned, TestTables.simpleRows(0, 1), Prune.NONE))
                .isInstanceOf(RebuildException.class)
                .hasMessageContaining("partitioned");
    }
}
