package dev.floe.samples;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The upsert host's rows: the sample ingest's columns plus {@code version}, the number of the commit
 * that wrote the row; {@code id} is the key and the table's identifier field. Every other column is
 * derived from the key and the version, so a reader can check a row field by field. {@code ts} is
 * derived from the key alone: every version of a key lands in the same partition under {@code
 * hour(ts)} or {@code day(ts)} too, as an equality delete (which applies within its partition only)
 * needs.
 */
public final class UpsertRows {
    public static final Schema SCHEMA = new Schema(
            List.of(
                    required(1, "id", Types.LongType.get()),
                    optional(2, "ts", Types.TimestampType.withZone()),
                    required(3, "version", Types.LongType.get()),
                    optional(4, "device", Types.StringType.get()),
                    optional(5, "value", Types.DoubleType.get()),
                    optional(6, "payload", Types.StringType.get())),
            Set.of(1));

    /** The key: the column the equality deletes of this table name. */
    public static final String KEY_COLUMN = "id";

    private static final Instant TS_BASE = Instant.parse("2025-01-01T00:00:00Z");

    private UpsertRows() {}

    /** The row of {@code key} that commit {@code version} writes, made from a copy of {@code template}. */
    public static Record row(GenericRecord template, long key, long version) {
        Record row = template.copy();
        row.setField("id", key);
        row.setField("ts", ts(key));
        row.setField("version", version);
        row.setField("device", "device-" + Math.floorMod(key, 64));
        row.setField("value", key * 0.25 + version);
        row.setField("payload", String.format(Locale.ROOT, "%016x%016x", mix(key), mix(key * 31 + version)));
        return row;
    }

    /** Four days, 24 hours each: {@code day(ts)} puts the keys in four partitions, {@code hour(ts)} in 96. */
    static OffsetDateTime ts(long key) {
        Instant at = TS_BASE.plus(Duration.ofDays(Math.floorMod(key, 4)))
                .plus(Duration.ofHours(Math.floorMod(key / 4, 24)))
                .plusMillis(Math.floorMod(key, 1000L));
        return OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
    }

    /** Whether {@code read} is, field by field, the row of its key and version as {@link #row} makes it. */
    static boolean isAsWritten(Record read, GenericRecord template) {
        Object key = read.getField("id");
        Object version = read.getField("version");
        if (!(key instanceof Long) || !(version instanceof Long)) {
            return false;
        }
        Record expected = row(template, (Long) key, (Long) version);
        for (Types.NestedField field : SCHEMA.columns()) {
            if (!Objects.equals(read.getField(field.name()), expected.getField(field.name()))) {
                return false;
            }
        }
        return true;
    }

    private static long mix(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
