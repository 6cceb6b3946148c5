package dev.floe.runtime.seam;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The line format of the records floe keeps in the catalog file's durable sections: a header line,
 * then one {@code field value} line each. Table identifiers are written with separators no name
 * contains, so names with dots round-trip.
 */
final class DurableRecords {
    private static final String LEVEL = "\u001F";
    private static final String NAME = "\u001E";

    private DurableRecords() {}

    static String identifier(TableIdentifier identifier) {
        return String.join(LEVEL, identifier.namespace().levels()) + NAME + identifier.name();
    }

    static TableIdentifier identifier(String encoded) {
        int split = encoded.lastIndexOf(NAME);
        String namespace = encoded.substring(0, split);
        return TableIdentifier.of(
                namespace.isEmpty() ? Namespace.empty() : Namespace.of(namespace.split(LEVEL, -1)),
                encoded.substring(split + 1));
    }

    /** Builds one record. */
    static final class Writer {
        private final StringBuilder text;

        Writer(String header) {
            this.text = new StringBuilder(header).append('\n');
        }

        Writer field(String name, Object value) {
            String line = String.valueOf(value);
            if (line.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("A durable field cannot hold a line break: " + line);
            }
            text.append(name).append(' ').append(line).append('\n');
            return this;
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }

    /** Reads one record's fields back; every value of a repeated field, in order. */
    static final class Reader {
        private final List<String[]> fields = new ArrayList<>();

        Reader(String record, String header) {
            String[] lines = record.split("\n");
            if (lines.length == 0 || !lines[0].equals(header)) {
                throw new IllegalArgumentException("Not a '" + header + "' record: " + lines[0]);
            }
            for (int i = 1; i < lines.length; i++) {
                int space = lines[i].indexOf(' ');
                fields.add(new String[] {lines[i].substring(0, space), lines[i].substring(space + 1)});
            }
        }

        String one(String name) {
            for (String[] field : fields) {
                if (field[0].equals(name)) {
                    return field[1];
                }
            }
            throw new IllegalArgumentException("Record has no field '" + name + "'");
        }

        List<String> all(String name) {
            List<String> values = new ArrayList<>();
            for (String[] field : fields) {
                if (field[0].equals(name)) {
                    values.add(field[1]);
                }
            }
            return values;
        }
    }
}
