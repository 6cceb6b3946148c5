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
 * @param wrongRows rows other than the one right row of their key: the latest version, as written
 * @param keysWithout keys written whose latest version was not read (as written)
 * @param staleVersions rows of a written key with another version than its last
 * @param duplicates rows of a key beyond its first
 * @param strangers rows of a key never written
 * @param unlike rows whose columns are not those their key and version were written with
 */
record UpsertCheck(
        long rows,
        long keys,
        long wrongRows,
        long keysWithout,
        long staleVersions,
        long duplicates,
        long strangers,
        long unlike) {

    /** Rows other than the latest version of their key (stale, duplicated, unknown, unlike), plus keys without it. */
    long wrong() {
        return wrongRows + keysWithout;
    }

    /** What is wrong, in words, or null. */
    String problem(String what) {
        if (wrong() == 0) {
            return null;
        }
        return String.format(
                Locale.ROOT,
                "%s: %d rows of %d keys; %d rows wrong, %d keys without their latest version; %d rows with a"
                        + " stale version, %d duplicated, %d of keys never written, %d unlike what was written",
                what,
                rows,
                keys,
                wrongRows,
                keysWithout,
                staleVersions,
                duplicates,
                strangers,
                unlike);
    }

    /**
     * Reads every row of {@code table} against {@code lastVersion}: the number of the last commit that
     * wrote each key of {@code [0, lastVersion.length)}, 0 for a key never written.
     */
    static UpsertCheck read(Table table, long[] lastVersion) throws IOException {
        int[] seen = new int[lastVersion.length];
        boolean[] right = new boolean[lastVersion.length];
        long rows = 0;
        long stale = 0;
        long duplicates = 0;
        long strangers = 0;
        long unlike = 0;
        GenericRecord template = GenericRecord.create(table.schema());
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                rows++;
                boolean asWritten = UpsertRows.isAsWritten(record, template);
                if (!asWritten) {
                    unlike++;
                }
                Object id = record.getField(UpsertRows.KEY_COLUMN);
                long key = id instanceof Long ? (Long) id : -1;
                if (key < 0 || key >= lastVersion.length || lastVersion[(int) key] == 0) {
                    strangers++;
                    continue;
                }
                int k = (int) key;
                if (++seen[k] > 1) {
                    duplicates++;
                }
                if (!Long.valueOf(lastVersion[k]).equals(record.getField("version"))) {
                    stale++;
                } else if (asWritten) {
                    right[k] = true;
                }
            }
        }
        long keys = 0;
        long rightRows = 0;
        long without = 0;
        for (int k = 0; k < lastVersion.length; k++) {
            keys += seen[k] > 0 ? 1 : 0;
            rightRows += right[k] ? 1 : 0;
            without += lastVersion[k] > 0 && !right[k] ? 1 : 0;
        }
        return new UpsertCheck(rows, keys, rows - rightRows, without, stale, duplicates, strangers, unlike);
    }
}
