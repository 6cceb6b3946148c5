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
                summed(sources, DataFile::columnSizes),
                summed(sources, DataFile::valueCounts),
                summed(sources, DataFile::nullValueCounts),
                summed(sources, DataFile::nanValueCounts),
                bounds(sources, DataFile::lowerBounds, schema, true),
                bounds(sources, DataFile::upperBounds, schema, false));
    }

    /** Per column, the sum of the sources' counts; none for a column a source does not count. */
    private static Map<Integer, Long> summed(List<DataFile> sources, Function<DataFile, Map<Integer, Long>> counts) {
        Map<Integer, Long> sum = null;
        for (DataFile source : sources) {
            Map<Integer, Long> one = counts.apply(source);
            if (one == null) {
                return null;
            }
            if (sum == null) {
                sum = new HashMap<>(one);
            } else {
                sum.keySet().retainAll(one.keySet());
                sum.replaceAll((id, total) -> total + one.get(id));
            }
        }
        return sum;
    }

    /** Per column, the lowest lower bound ({@code lower}) or the highest upper one; none where a source has none. */
    private static Map<Integer, ByteBuffer> bounds(
            List<DataFile> sources, Function<DataFile, Map<Integer, ByteBuffer>> of, Schema schema, boolean lower) {
        Map<Integer, ByteBuffer> widest = null;
        for (DataFile source : sources) {
            Map<Integer, ByteBuffer> one = of.apply(source);
            if (one == null) {
                return null;
            }
            if (widest == null) {
                widest = new HashMap<>(one);
                continue;
            }
            widest.keySet().retainAll(one.keySet());
            for (Map.Entry<Integer, ByteBuffer> entry : widest.entrySet()) {
                Type type = schema.findType(entry.getKey());
                if (type == null || !type.isPrimitiveType()) {
                    entry.setValue(null);
                    continue;
                }
                ByteBuffer other = one.get(entry.getKey());
                if (entry.getValue() != null && compare(type, other, entry.getValue()) * (lower ? 1 : -1) < 0) {
                    entry.setValue(other);
                }
            }
            widest.values().removeIf(java.util.Objects::isNull);
        }
        return widest;
    }

    @SuppressWarnings("unchecked")
    private static int compare(Type type, ByteBuffer a, ByteBuffer b) {
        Comparator<Object> order = (Comparator<Object>) Comparators.forType(type.asPrimitiveType());
        return order.compare(Conversions.fromByteBuffer(type, a), Conversions.fromByteBuffer(type, b));
    }
}
