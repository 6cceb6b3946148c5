package dev.floe.samples;

import java.io.IOException;
import java.util.Locale;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The upsert host's read-back: a full scan (every column, planning included) that checks the table
 * holds exactly the latest version of every key written, each once, field by field as written, and
 * no other row.
 *
 * @param rows rows read
 * @param keys distinct keys read
 * @param staleVersions rows of a written key with another version than its last
 * @param duplicates rows of a key read more than once (each beyond the first)
 * @param missing keys written and not read
 * @param strangers rows of a key never written
 * @param unlike rows whose columns are not those their key and version were written with
 */
record UpsertCheck(
        long rows, long keys, long staleVersions, long duplicates, long missing, long strangers, long unlike) {

    /** Rows with a wrong version, duplicated or unknown keys, wrong fields, plus missing keys. */
    long wrong() {
        return staleVersions + duplicates + missing + strangers + unlike;
    }

    /** What is wrong, in words, or null. */
    String problem(String what) {
        if (wrong() == 0) {
            return null;
        }
        return String.format(
                Locale.ROOT,
                "%s: %d rows of %d keys; %d with a stale version, %d duplicated, %d keys missing, %d rows of keys"
                        + " never written, %d rows unlike what was written",
                what,
                rows,
                keys,
                staleVersions,
                duplicates,
                missing,
                strangers,
                unlike);
    }

    /**
     * Reads every row of {@code table} against {@code lastVersion}: the number of the last commit that
     * wrote each key of {@code [0, lastVersion.length)}, 0 for a key never written.
     */
    static UpsertCheck read(Table table, long[] lastVersion) throws IOException {
        int[] seen = new int[lastVersion.length];
        long rows = 0;
        long stale = 0;
        long duplicates = 0;
        long strangers = 0;
        long unlike = 0;
        GenericRecord template = GenericRecord.create(table.schema());
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                rows++;
                if (!UpsertRows.isAsWritten(record, template)) {
                    unlike++;
                }
                Object id = record.getField(UpsertRows.KEY_COLUMN);
                long key = id instanceof Long ? (Long) id : -1;
                if (key < 0 || key >= lastVersion.length || lastVersion[(int) key] == 0) {
                    strangers++;
                    continue;
                }
                if (++seen[(int) key] > 1) {
                    duplicates++;
                }
                if (!Long.valueOf(lastVersion[(int) key]).equals(record.getField("version"))) {
                    stale++;
                }
            }
        }
        long keys = 0;
        long missing = 0;
        for (int k = 0; k < lastVersion.length; k++) {
            if (seen[k] > 0) {
                keys++;
            } else if (lastVersion[k] > 0) {
                missing++;
            }
        }
        return new UpsertCheck(rows, keys, stale, duplicates, missing, strangers, unlike);
    }
}
