package dev.floe.agent.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/** Numbers, sizes, times and JSON strings as the CLI prints them. */
final class Text {
    /** JSON's two-character escapes. */
    private static final java.util.Map<Character, String> ESCAPES =
            java.util.Map.of('"', "\\\"", '\\', "\\\\", '\n', "\\n", '\r', "\\r", '\t', "\\t");

    private Text() {}

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit += 1;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    static String duration(Duration duration) {
        long seconds = Math.max(0, duration.getSeconds());
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return (seconds / 60) + "m " + (seconds % 60) + "s";
        }
        return (seconds / 3600) + "h " + (seconds % 3600 / 60) + "m";
    }

    static String instant(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** When {@code due} is, seen from {@code now}: "in 9m 58s" or "overdue by 3s". */
    static String relative(Instant due, Instant now) {
        return due.isAfter(now) ? "in " + duration(Duration.between(now, due)) : "due now";
    }

    static String json(String value) {
        if (value == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            String escape = ESCAPES.get(c);
            if (escape != null) {
                out.append(escape);
            } else if (c < 0x20) {
                out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
