package dev.floe.agent;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Typed access to the raw values, each failure naming its key, value and expected form. */
final class ConfigValues {
    /** What each size unit multiplies by: powers of 1024, and of 1000 for the decimal ones. */
    private static final java.util.Map<String, Long> SCALES = java.util.Map.of(
            "b",
            1L,
            "kib",
            1L << 10,
            "mib",
            1L << 20,
            "gib",
            1L << 30,
            "tib",
            1L << 40,
            "kb",
            1_000L,
            "mb",
            1_000_000L,
            "gb",
            1_000_000_000L,
            "tb",
            1_000_000_000_000L);

    private static final Pattern SIZE =
            Pattern.compile("(\\d+)\\s*(b|kib|mib|gib|tib|kb|mb|gb|tb)?", Pattern.CASE_INSENSITIVE);
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)", Pattern.CASE_INSENSITIVE);

    private final Map<String, String> values;

    ConfigValues(Map<String, String> values) {
        this.values = values;
    }

    String raw(String key) {
        return values.getOrDefault(key, ConfigKeys.ALL.get(key)[0]);
    }

    ConfigException invalid(String key) {
        return new ConfigException(
                key + " is '" + raw(key) + "'; expected " + ConfigKeys.ALL.get(key)[1]);
    }

    boolean bool(String key) throws ConfigException {
        String value = raw(key).trim().toLowerCase(Locale.ROOT);
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        throw invalid(key);
    }

    /** A share above 0 and at most 1, as a fraction ({@code 0.3}) or a percentage ({@code 30%}). */
    double share(String key) throws ConfigException {
        String value = raw(key).trim();
        try {
            double share = value.endsWith("%")
                    ? Double.parseDouble(value.substring(0, value.length() - 1).trim()) / 100
                    : Double.parseDouble(value);
            if (share > 0 && share <= 1) {
                return share;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(key);
    }

    long count(String key, long min) throws ConfigException {
        try {
            long value = Long.parseLong(raw(key).trim().replace("_", ""));
            if (value >= min && value <= Integer.MAX_VALUE) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(key);
    }

    long bytes(String key) throws ConfigException {
        Matcher m = SIZE.matcher(raw(key).trim());
        if (!m.matches()) {
            throw invalid(key);
        }
        long number;
        try {
            number = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw invalid(key);
        }
        String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
        long scale = SCALES.get(unit);
        if (number <= 0 || number > Long.MAX_VALUE / scale) {
            throw invalid(key);
        }
        return number * scale;
    }

    /** {@link #duration}, or null for {@code off}. */
    /** {@link #bytes}, or 0 for {@code off}. */
    long bytesOrOff(String key) throws ConfigException {
        return "off".equalsIgnoreCase(raw(key).trim()) ? 0 : bytes(key);
    }

    Duration durationOrOff(String key) throws ConfigException {
        return "off".equalsIgnoreCase(raw(key).trim()) ? null : duration(key);
    }

    Duration duration(String key) throws ConfigException {
        String value = raw(key).trim();
        if (value.toUpperCase(Locale.ROOT).startsWith("P")) {
            try {
                Duration parsed = Duration.parse(value);
                if (!parsed.isNegative()) {
                    return parsed;
                }
            } catch (DateTimeParseException e) {
                // reported below
            }
            throw invalid(key);
        }
        Matcher m = DURATION.matcher(value);
        if (!m.matches()) {
            throw invalid(key);
        }
        long amount = Long.parseLong(m.group(1));
        switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "ms":
                return Duration.ofMillis(amount);
            case "s":
                return Duration.ofSeconds(amount);
            case "m":
                return Duration.ofMinutes(amount);
            case "h":
                return Duration.ofHours(amount);
            default:
                return Duration.ofDays(amount);
        }
    }
}
