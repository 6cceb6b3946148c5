package dev.floe.runtime.install;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotParser;

/**
 * A snapshot with another parent, operation, manifest list or summary. Iceberg has no public way to
 * make one, so the change goes through the snapshot's own JSON ({@link SnapshotParser}), the form
 * every catalog stores it in; everything else in it (id, sequence number, timestamp, schema id, and
 * any field a later Iceberg adds) is kept as Iceberg wrote it.
 *
 * <p>Edited as text, not with Jackson: Iceberg's runtime jars for Spark and Flink relocate Jackson,
 * so no Jackson type may appear in a call to Iceberg. The snapshot read back is checked, so an
 * Iceberg that writes snapshots in another form fails the rebuild instead of installing a wrong one.
 */
public final class SnapshotJson {
    private static final String PARENT = "\"parent-snapshot-id\"";
    private static final String OWN_ID = "\"snapshot-id\"";
    private static final String SUMMARY = "\"summary\"";
    private static final String MANIFEST_LIST = "\"manifest-list\"";

    private SnapshotJson() {}

    /** {@code snapshot} with {@code parent} (null: none) as its parent and {@code operation} as its operation. */
    static Snapshot moved(Snapshot snapshot, Long parent, String operation) {
        Map<String, String> summary = new LinkedHashMap<>(summaryOf(snapshot));
        summary.put("operation", operation);
        Snapshot moved = fromJson(edit(snapshot, parent, snapshot.manifestListLocation(), summary));
        check(snapshot, moved, parent, snapshot.manifestListLocation(), operation, summary);
        return moved;
    }

    /** {@code snapshot} without a parent, marked {@link HistoryRewrites#ROOTED}: taken off {@code main}'s ancestry as it is. */
    static Snapshot rooted(Snapshot snapshot) {
        Map<String, String> summary = new LinkedHashMap<>(summaryOf(snapshot));
        summary.put(HistoryRewrites.ROOTED, "true");
        summary.put("operation", snapshot.operation());
        Snapshot rooted = fromJson(edit(snapshot, null, snapshot.manifestListLocation(), summary));
        check(snapshot, rooted, null, snapshot.manifestListLocation(), snapshot.operation(), summary);
        return rooted;
    }

    /**
     * {@code snapshot} listing the manifests of {@code manifestList}, with {@code summary} (whose
     * {@code operation} is kept) and no parent: the same version of the table, in another layout.
     */
    public static Snapshot rewritten(Snapshot snapshot, String manifestList, Map<String, String> summary) {
        Map<String, String> all = new LinkedHashMap<>(summary);
        all.put("operation", snapshot.operation());
        Snapshot rewritten = fromJson(edit(snapshot, null, manifestList, all));
        check(snapshot, rewritten, null, manifestList, snapshot.operation(), all);
        return rewritten;
    }

    private static String edit(Snapshot snapshot, Long parent, String manifestList, Map<String, String> summary) {
        String json = SnapshotParser.toJson(snapshot);
        json = withoutField(json, PARENT);
        if (parent != null) {
            int id = valueEnd(json, OWN_ID);
            json = json.substring(0, id) + "," + PARENT + ":" + parent + json.substring(id);
        }
        json = replaceValue(json, SUMMARY, summaryJson(summary));
        if (manifestList != null) {
            json = replaceValue(json, MANIFEST_LIST, quote(manifestList));
        }
        return json;
    }

    private static Snapshot fromJson(String json) {
        return SnapshotParser.fromJson(json);
    }

    private static void check(
            Snapshot original,
            Snapshot made,
            Long parent,
            String manifestList,
            String operation,
            Map<String, String> summary) {
        if (made.snapshotId() != original.snapshotId()
                || !Objects.equals(parent, made.parentId())
                || !operation.equals(made.operation())
                || made.sequenceNumber() != original.sequenceNumber()
                || made.timestampMillis() != original.timestampMillis()
                || !Objects.equals(made.schemaId(), original.schemaId())
                || !Objects.equals(made.manifestListLocation(), manifestList)
                || !Objects.equals(withoutOperation(made.summary()), withoutOperation(summary))) {
            throw new IllegalStateException("Cannot edit snapshot " + original.snapshotId()
                    + ": this Iceberg writes snapshots in a form floe does not know");
        }
    }

    private static Map<String, String> summaryOf(Snapshot snapshot) {
        return snapshot.summary() == null ? Map.of() : snapshot.summary();
    }

    private static Map<String, String> withoutOperation(Map<String, String> summary) {
        Map<String, String> rest = new HashMap<>(summary == null ? Map.of() : summary);
        rest.remove("operation");
        return rest;
    }

    /** The summary object, {@code operation} first as Iceberg writes it. */
    private static String summaryJson(Map<String, String> summary) {
        StringBuilder json = new StringBuilder("{");
        json.append(quote("operation")).append(':').append(quote(summary.get("operation")));
        summary.forEach((key, value) -> {
            if (!"operation".equals(key)) {
                json.append(',').append(quote(key)).append(':').append(quote(value));
            }
        });
        return json.append('}').toString();
    }

    /** {@code json} without the top-level field {@code name} (and its comma), if it has one. */
    private static String withoutField(String json, String name) {
        int at = fieldStart(json, name);
        if (at < 0) {
            return json;
        }
        int end = valueEnd(json, name);
        int comma = json.lastIndexOf(',', at);
        if (comma > json.lastIndexOf('{', at)) {
            return json.substring(0, comma) + json.substring(end);
        }
        // the first field: its comma follows it
        int next = json.indexOf(',', end);
        return json.substring(0, at) + json.substring(next < 0 ? end : next + 1);
    }

    private static String replaceValue(String json, String name, String value) {
        int at = fieldStart(json, name);
        if (at < 0) {
            throw new IllegalStateException("Iceberg wrote a snapshot without " + name + ": " + json);
        }
        int start = json.indexOf(':', at + name.length()) + 1;
        return json.substring(0, start) + value + json.substring(valueEnd(json, name));
    }

    /** Where the top-level field {@code name} starts in {@code json}; -1 when it has none. */
    private static int fieldStart(String json, String name) {
        int depth = 0;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '"') {
                if (depth == 1
                        && json.startsWith(name, i)
                        && json.startsWith(":", skipSpaces(json, i + name.length()))) {
                    return i;
                }
                i = stringEnd(json, i) - 1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
        }
        return -1;
    }

    /** Where the value of the top-level field {@code name} ends (exclusive). */
    private static int valueEnd(String json, String name) {
        int at = fieldStart(json, name);
        if (at < 0) {
            throw new IllegalStateException("Iceberg wrote a snapshot without " + name + ": " + json);
        }
        int i = skipSpaces(json, json.indexOf(':', at + name.length()) + 1);
        char first = json.charAt(i);
        if (first == '"') {
            return stringEnd(json, i);
        }
        if (first == '{' || first == '[') {
            int depth = 0;
            for (; i < json.length(); i++) {
                char c = json.charAt(i);
                if (c == '"') {
                    i = stringEnd(json, i) - 1;
                } else if (c == '{' || c == '[') {
                    depth++;
                } else if ((c == '}' || c == ']') && --depth == 0) {
                    return i + 1;
                }
            }
            throw new IllegalStateException("unterminated " + name + " in " + json);
        }
        while (i < json.length() && ",}".indexOf(json.charAt(i)) < 0) {
            i++;
        }
        return i;
    }

    /** The index after the string that starts (with its quote) at {@code start}. */
    private static int stringEnd(String json, int start) {
        for (int i = start + 1; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return i + 1;
            }
        }
        throw new IllegalStateException("unterminated string in " + json);
    }

    private static int skipSpaces(String json, int i) {
        while (i < json.length() && Character.isWhitespace(json.charAt(i))) {
            i++;
        }
        return i;
    }

    static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
