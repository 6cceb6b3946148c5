package dev.floe.samples;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one line a program of this repository prints when it is done: {@code RESULT key=value ...},
 * values without spaces. {@link Ingest} and the benchmark hosts write it; the demo and the
 * benchmarks read it.
 */
public final class ResultLine {
    public static final String PREFIX = "RESULT ";

    private ResultLine() {}

    /** {@code RESULT k=v k=v ...} of {@code values}, in their order. */
    public static String format(Map<String, String> values) {
        StringBuilder line = new StringBuilder("RESULT");
        values.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        return line.toString();
    }

    /** The pairs of a RESULT line, in order; null if {@code line} is no RESULT line. */
    public static Map<String, String> parse(String line) {
        if (line == null || !line.startsWith(PREFIX)) {
            return null;
        }
        return pairs(line.substring(PREFIX.length()));
    }

    /** The {@code k=v} pairs of {@code text}, in order; words without {@code =} are passed over. */
    public static Map<String, String> pairs(String text) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String pair : text.trim().split("\\s+")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                values.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return values;
    }

    /** {@code values.get(key)} as a number; NaN when absent or not a number ({@code skipped}). */
    public static double number(Map<String, String> values, String key) {
        if (values == null || values.get(key) == null) {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(values.get(key));
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
