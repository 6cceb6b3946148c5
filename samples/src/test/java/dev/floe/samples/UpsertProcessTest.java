package dev.floe.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Runs the upsert host as a real, separate JVM (no agent) and checks what it reports. */
class UpsertProcessTest {
    private static final int COMMITS = 30;
    private static final int ROWS = 10;
    private static final int KEYS = 200;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "partition={0}, format {1}")
    @CsvSource({"none, 2", "day, 2", "bucket:3, 3"})
    void theTableHoldsTheLatestVersionOfEveryKeyAndEveryDeleteTheHostCommitted(String partition, int format)
            throws Exception {
        ChildJvm.Run child = upsert(
                List.of("-Dingest.partition=" + partition, "-Dupsert.format-version=" + format), COMMITS, ROWS, KEYS);

        assertThat(child.exitCode()).as(child.output()).isZero();
        Map<String, String> result = child.result();
        long written = Arrays.stream(UpsertKeys.lastVersions(KEYS, ROWS, 1, COMMITS))
                .filter(v -> v > 0)
                .count();
        assertThat(written).as("some keys were updated, some never written").isBetween(ROWS + 1L, KEYS - 1L);
        assertThat(result)
                .as(child.output())
                .containsEntry("commits", Integer.toString(COMMITS))
                .containsEntry("keys", Long.toString(written))
                .containsEntry("rows", Long.toString(written))
                .containsEntry("wrong", "0")
                .containsEntry("heldWrong", "0")
                .containsEntry("snapshots", Integer.toString(COMMITS))
                .containsEntry("lastRebuild", "none")
                .containsEntry("deletesSincePin", "none")
                .doesNotContainKey("problem");
        // one data file and one equality delete file per partition a commit touches
        long files = filesWritten(partition);
        assertThat(files).isBetween((long) COMMITS, (long) COMMITS * 4);
        assertThat(result).containsEntry("dataFiles", Long.toString(files));
        assertThat(result).containsEntry("tableDeleteFiles", Long.toString(files));
        assertThat(child.output())
                .contains("LAST-REBUILD none")
                .contains("DELETES count=" + files + " eq:" + COMMITS + ":c" + COMMITS + " ");
    }

    @Test
    void aSecondRunNumbersItsVersionsOnAndChecksTheWholeTable() throws Exception {
        ChildJvm.Run first = upsert(List.of(), 10, ROWS, KEYS);
        ChildJvm.Run second = upsert(List.of("-Dupsert.seed=2"), 10, ROWS, KEYS);

        assertThat(first.exitCode()).as(first.output()).isZero();
        assertThat(second.exitCode()).as(second.output()).isZero();
        assertThat(second.result()).containsEntry("wrong", "0").containsEntry("snapshots", "20");
        assertThat(second.output()).contains(" eq:20:c20 ");
    }

    @Test
    void aRowTheUpsertsDidNotWriteIsCaughtAndFailsTheRun() throws Exception {
        ChildJvm.Run first = upsert(List.of(), 5, ROWS, KEYS);
        assertThat(first.exitCode()).as(first.output()).isZero();
        // a second row for a key the next run does not write: a stale version beside its latest
        int[] nextKeys = new UpsertKeys(KEYS, ROWS, 1).next();
        long[] versions = UpsertKeys.lastVersions(KEYS, ROWS, 1, 5);
        int key = 0;
        while (versions[key] == 0 || Arrays.binarySearch(nextKeys, key) >= 0) {
            key++;
        }
        appendStaleRow(key);

        ChildJvm.Run second = upsert(List.of(), 1, ROWS, KEYS);

        assertThat(second.exitCode()).as(second.output()).isEqualTo(1);
        assertThat(second.result()).containsEntry("wrong", "1").containsKey("problem");
        assertThat(second.output()).contains("1 duplicated");
    }

    @Test
    void moreRowsPerCommitThanKeysIsABadArgument() throws Exception {
        ChildJvm.Run child = upsert(List.of(), 1, 20, 10);

        assertThat(child.exitCode()).isEqualTo(2);
        assertThat(child.output().strip()).startsWith("upsert: error:").doesNotContain("\n");
    }

    @Test
    void theKeysOfACommitAreDistinctAndSeeded() {
        UpsertKeys a = new UpsertKeys(100, 30, 7);
        UpsertKeys b = new UpsertKeys(100, 30, 7);
        for (int commit = 0; commit < 50; commit++) {
            int[] keys = a.next();
            assertThat(keys).isSorted().doesNotHaveDuplicates().hasSize(30).isEqualTo(b.next());
            assertThat(keys[0]).isGreaterThanOrEqualTo(0);
            assertThat(keys[29]).isLessThan(100);
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** The partitions each commit's keys fall in, summed over the commits. */
    private static long filesWritten(String partition) {
        UpsertKeys chooser = new UpsertKeys(KEYS, ROWS, 1);
        java.util.function.Function<Object, Integer> bucket =
                org.apache.iceberg.transforms.Transforms.bucket(3).bind(org.apache.iceberg.types.Types.LongType.get());
        long files = 0;
        for (int commit = 0; commit < COMMITS; commit++) {
            java.util.Set<Integer> partitions = new java.util.HashSet<>();
            for (int key : chooser.next()) {
                // day(ts): ts is four days, by the key modulo 4 (UpsertRows.ts)
                partitions.add(
                        partition.equals("none") ? 0 : partition.equals("day") ? key % 4 : bucket.apply((long) key));
            }
            files += partitions.size();
        }
        return files;
    }

    private void appendStaleRow(int key) throws IOException {
        Catalog catalog = CatalogUtil.loadCatalog(
                "dev.floe.catalog.MapDbCatalog",
                "test",
                IngestSettings.catalogProperties(catalogProperties()),
                IngestSettings.nioHadoopConf());
        try {
            Table table = catalog.loadTable(TableIdentifier.parse("test.upserts"));
            DataFile file = Events.writeFile(table, key, 1, (template, id) -> UpsertRows.row(template, id, 0));
            table.newFastAppend().appendFile(file).commit();
        } finally {
            if (catalog instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IOException(e);
                }
            }
        }
    }

    private ChildJvm.Run upsert(List<String> jvm, int commits, int rows, int keys) throws Exception {
        return new ChildJvm(
                        Upsert.class.getName(),
                        List.of(
                                catalogProperties().toString(),
                                "test.upserts",
                                Integer.toString(commits),
                                Integer.toString(rows),
                                Integer.toString(keys)))
                .jvm(jvm)
                .bound(Duration.ofMinutes(5))
                .run(Files.createTempFile(dir, "upsert", ".log"));
    }

    private Path catalogProperties() throws IOException {
        Path properties = dir.resolve("catalog.properties");
        Files.writeString(
                properties,
                String.join(
                        "\n",
                        "catalog-impl=dev.floe.catalog.MapDbCatalog",
                        "warehouse=" + dir.resolve("warehouse"),
                        "uri=" + dir.resolve("catalog.db"),
                        ""));
        return properties;
    }
}
