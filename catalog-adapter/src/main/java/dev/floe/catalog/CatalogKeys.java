package dev.floe.catalog;

import java.util.Arrays;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * How namespaces and table identifiers become the string keys of the catalog file.
 *
 * <p>Levels are joined with ASCII unit separators rather than dots or slashes, so names that contain
 * dots or slashes round-trip exactly and keys of one namespace sort next to each other.
 */
final class CatalogKeys {
    /** Between namespace levels. */
    static final char LEVEL = '\u001F';
    /** Between a namespace and a table name. */
    static final char TABLE = '\u001E';
    /** Between a table key and a commit-log sequence number. */
    static final char SEQUENCE = '\u001D';
    /** Upper bound for prefix ranges. */
    static final char END = Character.MAX_VALUE;

    private CatalogKeys() {}

    static String namespace(Namespace namespace) {
        return String.join(String.valueOf(LEVEL), namespace.levels());
    }

    static Namespace namespace(String key) {
        return key.isEmpty() ? Namespace.empty() : Namespace.of(key.split(String.valueOf(LEVEL), -1));
    }

    static String table(TableIdentifier identifier) {
        return namespace(identifier.namespace()) + TABLE + identifier.name();
    }

    static TableIdentifier table(String key) {
        int split = key.lastIndexOf(TABLE);
        return TableIdentifier.of(namespace(key.substring(0, split)), key.substring(split + 1));
    }

    /** The prefix every table key of {@code namespace} starts with. */
    static String tablesOf(Namespace namespace) {
        return namespace(namespace) + TABLE;
    }

    /** The prefix every commit-log key of {@code tableKey} starts with. */
    static String logOf(String tableKey) {
        return tableKey + SEQUENCE;
    }

    static String logEntry(String tableKey, long sequence) {
        return logOf(tableKey) + String.format("%019d", sequence);
    }

    static long sequenceOf(String logKey) {
        return Long.parseLong(logKey.substring(logKey.lastIndexOf(SEQUENCE) + 1));
    }

    /** True when {@code candidate} lies strictly below {@code parent}. */
    static boolean isDescendant(Namespace candidate, Namespace parent) {
        String[] c = candidate.levels();
        String[] p = parent.levels();
        return c.length > p.length && Arrays.equals(Arrays.copyOf(c, p.length), p);
    }
}
