package dev.floe.runtime.testing;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.guard.Guard;
import dev.floe.runtime.guard.GuardSettings;
import dev.floe.runtime.install.RebuiltFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Real catalogs, real Parquet files and row fingerprints for the runtime's tests. */
public final class TestTables {
    public static final Schema SIMPLE = new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "name", Types.StringType.get()),
            optional(3, "score", Types.DoubleType.get()));

    private TestTables() {}

    /**
     * A guard of the {@code db.*} tables that rebuilds at {@code triggerSnapshots} snapshots, with no
     * least interval between rebuilds, 16 tracked handles and the default busy back-off.
     */
    public static GuardSettings guardSettings(
            long triggerSnapshots, RebuildSettings rebuild, java.util.function.Supplier<Prune> prune, boolean jmx) {
        return new GuardSettings(
                List.of("db.*"),
                triggerSnapshots,
                1000,
                16L << 20,
                java.time.Duration.ZERO,
                GuardSettings.DEFAULT_MERGE_MANIFESTS,
                rebuild,
                prune,
                16,
                jmx,
                java.time.Duration.ofMinutes(1),
                java.time.Duration.ofHours(1),
                java.nio.file.Path.of(GuardSettings.DEFAULT_STATE_FILE));
    }

    /** What the agent's advice does around {@code ops.commit}: the guard's hooks around {@code commit}. */
    public static void guardedCommit(Guard guard, Table table, Runnable commit) {
        dev.floe.catalog.MapDbTableOperations ops =
                (dev.floe.catalog.MapDbTableOperations) ((org.apache.iceberg.HasTableOperations) table).operations();
        long wait = guard.beforeCommit(ops.identifier());
        boolean ok = false;
        try {
            commit.run();
            ok = true;
        } finally {
            guard.afterCommit(ops, ops.current(), ok, wait);
        }
    }

    public static MapDbCatalog catalog(Path root) {
        return catalog(root, Map.of());
    }

    public static MapDbCatalog catalog(Path root, Map<String, String> extra) {
        Map<String, String> properties = new HashMap<>(extra);
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION, root.resolve("warehouse").toString());
        properties.put(MapDbCatalog.URI, root.resolve("catalog.db").toString());
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("test", properties);
        return catalog;
    }

    /**
     * Iceberg's JdbcCatalog named {@code name} on the SQLite file {@code root/catalog.sqlite}, its
     * warehouse {@code root/warehouse}: another instance on the same file is what another process
     * would have (JDBC catalogs key their tables by name).
     */
    public static org.apache.iceberg.jdbc.JdbcCatalog sqliteJdbc(Path root, String name) {
        org.apache.iceberg.jdbc.JdbcCatalog catalog = new org.apache.iceberg.jdbc.JdbcCatalog();
        catalog.setConf(new org.apache.hadoop.conf.Configuration());
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + root.resolve("catalog.sqlite"));
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION, root.resolve("warehouse").toString());
        properties.put("jdbc.schema-version", "V1");
        catalog.initialize(name, properties);
        return catalog;
    }

    /**
     * The snapshot a rebuild of {@code table} just committed, checked to be floe's and current: a
     * {@code replace} whose parent is the head it rebuilt, kept below it with the history (floe's
     * default), or, when the rebuild kept no history, the table's only snapshot.
     */
    public static Snapshot rebuiltSnapshot(Table table) {
        Snapshot rebuilt = table.currentSnapshot();
        assertThat(rebuilt.summary()).as("floe's rebuilt snapshot").containsKey(RebuiltFiles.REBUILD_OF);
        if (rebuilt.parentId() == null) {
            assertThat(table.snapshots()).as("a rebuild that kept no history").hasSize(1);
        } else {
            assertThat(rebuilt.operation()).isEqualTo(DataOperations.REPLACE);
            assertThat(table.snapshot(rebuilt.parentId()))
                    .as("the head it rebuilt, kept")
                    .isNotNull();
        }
        return rebuilt;
    }

    public static Record simpleRow(long id) {
        GenericRecord row = GenericRecord.create(SIMPLE);
        row.setField("id", id);
        row.setField("name", "row-" + id);
        row.setField("score", id * 0.1 + 1e-9);
        return row;
    }

    public static List<Record> simpleRows(long from, int count) {
        List<Record> rows = new ArrayList<>();
        for (long id = from; id < from + count; id++) {
            rows.add(simpleRow(id));
        }
        return rows;
    }

    /** Writes {@code rows} to one new Parquet data file of {@code table}; does not commit it. */
    public static DataFile writeFile(Table table, List<Record> rows) {
        GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
        factory.setAll(table.properties());
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET)
                .build();
        DataWriter<Record> writer = factory.newDataWriter(files.newOutputFile(), FileFormat.PARQUET, (StructLike) null);
        try (writer) {
            rows.forEach(writer::write);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return writer.toDataFile();
    }

    /** One fast append of one file holding {@code rows}. */
    public static void append(Table table, List<Record> rows) {
        table.newFastAppend().appendFile(writeFile(table, rows)).commit();
    }

    public static List<Record> read(Table table) {
        table.refresh();
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    /** Every row of the table as a sorted list of exact fingerprints (a multiset). */
    public static List<String> fingerprints(Table table) {
        return fingerprints(read(table), table.schema());
    }

    public static List<String> fingerprints(Collection<Record> rows, Schema schema) {
        return rows.stream()
                .map(row -> fingerprint(row, schema.asStruct()))
                .sorted()
                .collect(Collectors.toList());
    }

    /** A row rendered exactly: floats and doubles by bit pattern, binary as hex, nested recursively. */
    public static String fingerprint(Object value, Type type) {
        if (value == null) {
            return "null";
        }
        switch (type.typeId()) {
            case STRUCT:
                StringBuilder struct = new StringBuilder("{");
                List<Types.NestedField> fields = type.asStructType().fields();
                for (int i = 0; i < fields.size(); i++) {
                    Object field = ((StructLike) value).get(i, Object.class);
                    struct.append(fields.get(i).fieldId())
                            .append('=')
                            .append(fingerprint(field, fields.get(i).type()))
                            .append(',');
                }
                return struct.append('}').toString();
            case LIST:
                return ((List<?>) value)
                        .stream()
                                .map(element ->
                                        fingerprint(element, type.asListType().elementType()))
                                .collect(Collectors.joining(",", "[", "]"));
            case MAP:
                return ((Map<?, ?>) value)
                        .entrySet().stream()
                                .map(e -> fingerprint(
                                                e.getKey(), type.asMapType().keyType()) + ":"
                                        + fingerprint(
                                                e.getValue(), type.asMapType().valueType()))
                                .sorted()
                                .collect(Collectors.joining(",", "<", ">"));
            case FLOAT:
                return "f" + Integer.toHexString(Float.floatToRawIntBits((Float) value));
            case DOUBLE:
                return "d" + Long.toHexString(Double.doubleToRawLongBits((Double) value));
            case BINARY:
            case FIXED:
                ByteBuffer buffer = value instanceof ByteBuffer
                        ? ((ByteBuffer) value).duplicate()
                        : ByteBuffer.wrap((byte[]) value);
                StringBuilder hex = new StringBuilder("0x");
                while (buffer.hasRemaining()) {
                    hex.append(String.format("%02x", buffer.get()));
                }
                return hex.toString();
            default:
                return type.typeId() + ":" + value;
        }
    }

    /** Every regular file under {@code root}, except the catalog file and its write-ahead log. */
    public static Set<String> filesOnDisk(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().startsWith("catalog.db"))
                    .map(p -> p.toAbsolutePath().toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Strips a {@code file:} scheme so metadata locations compare with paths on disk. */
    public static Set<String> localPaths(Collection<String> locations) {
        return locations.stream()
                .map(l -> l.startsWith("file:") ? java.net.URI.create(l).getPath() : l)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
