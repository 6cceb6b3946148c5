package dev.floe.runtime.rebuild;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.rows.TaskRows;
import dev.floe.runtime.testing.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeWrapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Partitioned tables are rebuilt per partition: the small files of one partition are packed
 * together and never mixed with another's, under every transform, and files written under an
 * earlier spec are rewritten into the current one. Rows exact in every case.
 */
class PartitionedRebuildTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final Schema SCHEMA = new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "name", Types.StringType.get()),
            optional(3, "kind", Types.StringType.get()),
            optional(4, "at", Types.TimestampType.withZone()),
            optional(5, "on", Types.DateType.get()),
            optional(6, "score", Types.DoubleType.get()));
    static final OffsetDateTime START = OffsetDateTime.of(2025, 12, 31, 20, 0, 0, 0, ZoneOffset.UTC);

    @TempDir
    Path root;

    static Stream<Arguments> transforms() {
        return Stream.of(
                Arguments.of(
                        "identity", (Function<PartitionSpec.Builder, PartitionSpec.Builder>) b -> b.identity("kind")),
                Arguments.of("year", (Function<PartitionSpec.Builder, PartitionSpec.Builder>) b -> b.year("at")),
                Arguments.of("month", (Function<PartitionSpec.Builder, PartitionSpec.Builder>) b -> b.month("on")),
                Arguments.of("day", (Function<PartitionSpec.Builder, PartitionSpec.Builder>) b -> b.day("at")),
                Arguments.of("hour", (Function<PartitionSpec.Builder, PartitionSpec.Builder>) b -> b.hour("at")),
                Arguments.of("bucket", (Function<PartitionSpec.Builder, PartitionSpec.Builder>) b -> b.bucket("id", 4)),
                Arguments.of("truncate", (Function<PartitionSpec.Builder, PartitionSpec.Builder>)
                        b -> b.truncate("name", 5)),
                Arguments.of(
                        "all at once", (Function<PartitionSpec.Builder, PartitionSpec.Builder>) b -> b.identity("kind")
                                .hour("at")
                                .month("on")
                                .bucket("id", 3)
                                .truncate("name", 5)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transforms")
    void eachPartitionIsPackedApartUnderEveryTransform(
            String name, Function<PartitionSpec.Builder, PartitionSpec.Builder> transform) throws Exception {
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            catalog.createNamespace(Namespace.of("db"));
            Table table = catalog.createTable(
                    EVENTS,
                    SCHEMA,
                    transform.apply(PartitionSpec.builderFor(SCHEMA)).build(),
                    Map.of(TableProperties.FORMAT_VERSION, "2"));
            for (int commit = 0; commit < 12; commit++) {
                appendByPartition(table, rows(commit * 40L, 40));
            }
            List<String> before = TestTables.fingerprints(table);
            int partitions = partitionsOf(table).size();
            assertThat(partitions).as("rows spread over several partitions").isGreaterThan(1);

            CompactReport report = new Compactor(RebuildSettings.defaults()).compactTable(catalog, EVENTS, Prune.NONE);

            Table rebuilt = catalog.loadTable(EVENTS);
            TestTables.rebuiltSnapshot(rebuilt);
            assertThat(TestTables.fingerprints(rebuilt))
                    .as("every row, field by field")
                    .isEqualTo(before);
            assertThat(report.rows() + report.keptRows())
                    .as("rewritten, or kept where a partition has a lone file")
                    .isEqualTo(480);
            Map<StructLikeWrapper, Integer> files = partitionsOf(rebuilt);
            assertThat(files).as("the same partitions").hasSize(partitions);
            assertThat(files.values()).as("one packed file per partition").containsOnly(1);
            assertEveryRowIsInItsFilesPartition(rebuilt);
        }
    }

    @Test
    void filesOfAnEarlierSpecAreRewrittenIntoTheCurrentOne() throws Exception {
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            catalog.createNamespace(Namespace.of("db"));
            Table table = catalog.createTable(
                    EVENTS,
                    SCHEMA,
                    PartitionSpec.builderFor(SCHEMA).day("at").build(),
                    Map.of(TableProperties.FORMAT_VERSION, "2"));
            for (int commit = 0; commit < 6; commit++) {
                appendByPartition(table, rows(commit * 40L, 40));
            }
            table.updateSpec()
                    .removeField(Expressions.day("at"))
                    .addField(Expressions.hour("at"))
                    .addField(Expressions.bucket("id", 2))
                    .commit();
            for (int commit = 6; commit < 10; commit++) {
                appendByPartition(table, rows(commit * 40L, 40));
            }
            List<String> before = TestTables.fingerprints(table);
            int current = table.spec().specId();

            new Compactor(RebuildSettings.defaults()).compactTable(catalog, EVENTS, Prune.NONE);

            Table rebuilt = catalog.loadTable(EVENTS);
            assertThat(rebuilt.snapshots()).hasSize(1);
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(before);
            assertThat(rebuilt.spec().fields()).hasSize(2);
            try (CloseableIterable<FileScanTask> tasks = rebuilt.newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    assertThat(task.file().specId())
                            .as("every file in the current spec")
                            .isEqualTo(rebuilt.spec().specId());
                }
            }
            assertThat(rebuilt.spec().specId()).isIn(current, 0);
            assertEveryRowIsInItsFilesPartition(rebuilt);
            Map<StructLikeWrapper, Integer> files = partitionsOf(rebuilt);
            assertThat(files.values())
                    .as("the rewritten rows packed per partition")
                    .allMatch(n -> n <= 2);
        }
    }

    /** {@code count} rows from {@code from}: kinds, hours across a year end, dates, names of a few prefixes. */
    static List<Record> rows(long from, int count) {
        List<Record> rows = new ArrayList<>();
        for (long id = from; id < from + count; id++) {
            GenericRecord row = GenericRecord.create(SCHEMA);
            row.setField("id", id);
            row.setField("name", (id % 3 == 0 ? "alpha-" : id % 3 == 1 ? "bravo-" : "charlie-") + id);
            row.setField("kind", id % 4 == 0 ? null : "k" + (id % 2));
            row.setField("at", START.plusMinutes(id % 300));
            row.setField("on", LocalDate.of(2025, 11, 20).plusDays(id % 25));
            row.setField("score", id * 0.1 + 1e-9);
            rows.add(row);
        }
        return rows;
    }

    /** One fast append of one file per partition {@code rows} fall in. */
    static void appendByPartition(Table table, List<Record> rows) {
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
        Map<StructLikeWrapper, List<Record>> byPartition = new HashMap<>();
        Map<StructLikeWrapper, StructLike> partitions = new HashMap<>();
        for (Record row : rows) {
            key.partition(wrapper.wrap(row));
            StructLikeWrapper wrapped =
                    StructLikeWrapper.forType(table.spec().partitionType()).set(key.copy());
            byPartition.computeIfAbsent(wrapped, k -> new ArrayList<>()).add(row);
            partitions.putIfAbsent(wrapped, wrapped.get());
        }
        GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
        factory.setAll(table.properties());
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .build();
        AppendFiles append = table.newFastAppend();
        byPartition.forEach((partition, inIt) -> {
            DataWriter<Record> writer = factory.newDataWriter(
                    files.newOutputFile(table.spec(), partition.get()), FileFormat.PARQUET, partition.get());
            try (writer) {
                inIt.forEach(writer::write);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            append.appendFile(writer.toDataFile());
        });
        append.commit();
    }

    /** Data files per partition of the current snapshot. */
    static Map<StructLikeWrapper, Integer> partitionsOf(Table table) throws IOException {
        table.refresh();
        Map<StructLikeWrapper, Integer> files = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                PartitionSpec spec = table.specs().get(task.file().specId());
                files.merge(
                        StructLikeWrapper.forType(spec.partitionType())
                                .set(task.file().partition()),
                        1,
                        Integer::sum);
            }
        }
        return files;
    }

    /** Reads each file on its own: every row in it belongs to the partition the file is listed under. */
    static void assertEveryRowIsInItsFilesPartition(Table table) throws IOException {
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                StructLikeWrapper listed = StructLikeWrapper.forType(
                                table.spec().partitionType())
                        .set(task.file().partition());
                try (CloseableIterable<Record> rows = TaskRows.current(table).rows(task)) {
                    for (Record row : rows) {
                        key.partition(wrapper.wrap(row));
                        assertThat(StructLikeWrapper.forType(table.spec().partitionType())
                                        .set(key))
                                .as("row %s of %s", row, task.file().location())
                                .isEqualTo(listed);
                    }
                }
            }
        }
    }
}
