package dev.floe.runtime.rows;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.rebuild.Compactor;
import dev.floe.runtime.testing.TestTables;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every Iceberg primitive type, and nested struct, list and map columns, survive a rebuild exactly. */
class TypesRoundTripTest {
    static final Types.StructType POINT = Types.StructType.of(
            required(20, "x", Types.DoubleType.get()), optional(21, "label", Types.StringType.get()));

    static final Schema ALL_TYPES = new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "b", Types.BooleanType.get()),
            optional(3, "i", Types.IntegerType.get()),
            optional(4, "l", Types.LongType.get()),
            optional(5, "f", Types.FloatType.get()),
            optional(6, "d", Types.DoubleType.get()),
            optional(7, "dec", Types.DecimalType.of(18, 6)),
            optional(8, "date", Types.DateType.get()),
            optional(9, "time", Types.TimeType.get()),
            optional(10, "ts", Types.TimestampType.withoutZone()),
            optional(11, "tstz", Types.TimestampType.withZone()),
            optional(12, "s", Types.StringType.get()),
            optional(13, "uuid", Types.UUIDType.get()),
            optional(14, "fixed", Types.FixedType.ofLength(7)),
            optional(15, "bin", Types.BinaryType.get()),
            optional(16, "point", POINT),
            optional(17, "tags", Types.ListType.ofOptional(22, Types.StringType.get())),
            optional(18, "attrs", Types.MapType.ofOptional(23, 24, Types.StringType.get(), Types.LongType.get())),
            optional(19, "wide_dec", Types.DecimalType.of(38, 10)));

    @TempDir
    Path root;

    @Test
    void everyTypeSurvivesByteIdentical() throws Exception {
        TableIdentifier id = TableIdentifier.of("db", "typed");
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            catalog.createNamespace(Namespace.of("db"));
            Table table = catalog.createTable(id, ALL_TYPES);
            Random random = new Random(42);
            for (int batch = 0; batch < 5; batch++) {
                List<Record> rows = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    rows.add(row(table.schema(), batch * 40L + i, random));
                }
                TestTables.append(table, rows);
            }
            List<String> before = TestTables.fingerprints(table);

            new Compactor(RebuildSettings.defaults()).compactTable(catalog, id, Prune.NONE);

            Table rebuilt = catalog.loadTable(id);
            TestTables.rebuiltSnapshot(rebuilt);
            assertThat(rebuilt.schema().sameSchema(table.schema())).isTrue();
            assertThat(TestTables.fingerprints(rebuilt)).hasSize(200).isEqualTo(before);
        }
    }

    static Record row(Schema schema, long id, Random random) {
        GenericRecord row = GenericRecord.create(schema);
        row.setField("id", id);
        boolean nulls = id % 7 == 3;
        if (nulls) {
            return row; // every optional column null
        }
        row.setField("b", random.nextBoolean());
        row.setField("i", random.nextInt());
        row.setField("l", random.nextLong());
        float f = id % 11 == 0 ? Float.NaN : id % 13 == 0 ? -0.0f : random.nextFloat() * 1e6f;
        row.setField("f", f);
        double d = id % 11 == 0
                ? Double.longBitsToDouble(0x7ff8000000000123L)
                : id % 13 == 0 ? Double.NEGATIVE_INFINITY : random.nextGaussian() * 1e300;
        row.setField("d", d);
        row.setField("dec", BigDecimal.valueOf(random.nextLong() % 1_000_000_000_000L, 6));
        row.setField("date", LocalDate.ofEpochDay(random.nextInt(40_000) - 20_000));
        row.setField("time", LocalTime.ofNanoOfDay((random.nextLong() & Long.MAX_VALUE) % 86_400_000_000L * 1000));
        row.setField("ts", LocalDateTime.ofEpochSecond(random.nextInt(), 123_456_000, ZoneOffset.UTC));
        row.setField(
                "tstz",
                OffsetDateTime.ofInstant(
                        java.time.Instant.ofEpochSecond(random.nextInt(), 654_321_000), ZoneOffset.UTC));
        row.setField("s", "héllo ☃ " + random.nextInt() + (id % 5 == 0 ? "" : "\u0000tail"));
        row.setField("uuid", new UUID(random.nextLong(), random.nextLong()));
        byte[] fixed = new byte[7];
        random.nextBytes(fixed);
        row.setField("fixed", fixed);
        byte[] bin = new byte[random.nextInt(40)];
        random.nextBytes(bin);
        row.setField("bin", ByteBuffer.wrap(bin));
        GenericRecord point = GenericRecord.create(POINT);
        point.setField("x", random.nextDouble());
        point.setField("label", id % 3 == 0 ? null : "p" + id);
        row.setField("point", point);
        List<String> tags = new ArrayList<>();
        for (int t = 0; t < id % 4; t++) {
            tags.add(t == 1 ? null : "tag" + t);
        }
        row.setField("tags", tags);
        row.setField("attrs", id % 6 == 0 ? Map.of() : Map.of("a", id, "b", -id));
        row.setField("wide_dec", new BigDecimal(new java.math.BigInteger(120, random), 10));
        return row;
    }
}
