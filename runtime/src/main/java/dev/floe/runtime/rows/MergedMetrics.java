package dev.floe.runtime.rows;

import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;

/**
 * Iceberg's metrics of a file made of other files' row groups ({@link RowGroupCopy}): the sum of
 * their counts and the widest of their bounds, per column. A column some source has no count or
 * bound for gets none. Merged from the sources' own metrics rather than read from the new footer:
 * Parquet's statistics of a float or double column chunk that holds a NaN have no min and max, and
 * Iceberg's footer metrics would then give the file the bounds of its other row groups only, too
 * narrow to find the rows of that one.
 */
final class MergedMetrics {
    private MergedMetrics() {}

    static Metrics of(List<DataFile> sources, Schema schema) {
        long rows = 0;
        for (DataFile source : sources) {
            rows += source.recordCount();
        }
        return new Metrics(
                rows,
                merged(sources, DataFile::columnSizes, (id, a, b) -> a + b),
                merged(sources, DataFile::valueCounts, (id, a, b) -> a + b),
                merged(sources, DataFile::nullValueCounts, (id, a, b) -> a + b),
                merged(sources, DataFile::nanValueCounts, (id, a, b) -> a + b),
                merged(sources, DataFile::lowerBounds, (id, a, b) -> wider(schema, id, a, b, true)),
                merged(sources, DataFile::upperBounds, (id, a, b) -> wider(schema, id, a, b, false)));
    }

    /** Two sources' values of column {@code id} as one; null drops the column. */
    private interface Combine<V> {
        V of(int id, V a, V b);
    }

    /** Per column, the sources' values combined; none for a column some source has no value for. */
    private static <V> Map<Integer, V> merged(
            List<DataFile> sources, Function<DataFile, Map<Integer, V>> of, Combine<V> combine) {
        Map<Integer, V> all = null;
        for (DataFile source : sources) {
            Map<Integer, V> one = of.apply(source);
            if (one == null) {
                return null;
            }
            if (all == null) {
                all = new HashMap<>(one);
            } else {
                all.keySet().retainAll(one.keySet());
                all.replaceAll((id, value) -> combine.of(id, value, one.get(id)));
                all.values().removeIf(java.util.Objects::isNull);
            }
        }
        return all;
    }

    /** The lower ({@code lower}) or the higher of two bounds of column {@code id}; null if it has no order here. */
    private static ByteBuffer wider(Schema schema, int id, ByteBuffer a, ByteBuffer b, boolean lower) {
        Type type = schema.findType(id);
        if (type == null || !type.isPrimitiveType()) {
            return null;
        }
        int order = compare(type, a, b);
        return (lower ? order <= 0 : order >= 0) ? a : b;
    }

    @SuppressWarnings("unchecked")
    private static int compare(Type type, ByteBuffer a, ByteBuffer b) {
        Comparator<Object> order = (Comparator<Object>) Comparators.forType(type.asPrimitiveType());
        return order.compare(Conversions.fromByteBuffer(type, a), Conversions.fromByteBuffer(type, b));
    }
}
