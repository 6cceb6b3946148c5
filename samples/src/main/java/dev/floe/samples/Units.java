package dev.floe.samples;

import java.util.Locale;

/** How the demo and the benchmarks print bytes, durations and ratios. */
public final class Units {
    private static final String[] DECIMAL = {"B", "kB", "MB", "GB", "TB"};
    private static final String[] BINARY = {"B", "KiB", "MiB", "GiB", "TiB"};

    private Units() {}

    /** Decimal units, three figures: 512 B, 4.80 MB, 27.6 MB, 169 MB; "-" for NaN. */
    public static String bytes(double n) {
        if (Double.isNaN(n)) {
            return "-";
        }
        int u = 0;
        double v = n;
        while (Math.abs(v) >= 1000 && u < DECIMAL.length - 1) {
            v /= 1000;
            u++;
        }
        return u == 0
                ? String.format(Locale.ROOT, "%.0f B", v)
                : String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, DECIMAL[u]);
    }

    /** {@link #bytes(double)} of a number in text; the text itself when it is no number. */
    public static String bytes(String value) {
        try {
            return bytes(Double.parseDouble(value));
        } catch (NumberFormatException | NullPointerException e) {
            return String.valueOf(value);
        }
    }

    /** A power of ten of bytes, short, for a chart's axis: 100 kB, 1 MB, 10 GB. */
    public static String tickBytes(double n) {
        int u = 0;
        double v = n;
        while (v >= 1000 && u < DECIMAL.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, "%.0f %s", v, DECIMAL[u]);
    }

    /** Binary units with the exact count: 1.5 MiB (1572864 B); "n/a" when negative (not known). */
    public static String binaryBytes(String value) {
        try {
            long n = Long.parseLong(value);
            if (n < 0) {
                return "n/a";
            }
            double v = n;
            int u = 0;
            while (v >= 1024 && u < BINARY.length - 1) {
                v /= 1024;
                u++;
            }
            return u == 0 ? n + " B" : String.format(Locale.ROOT, "%.1f %s (%d B)", v, BINARY[u], n);
        } catch (NumberFormatException e) {
            return value;
        }
    }

    /** Milliseconds: 0.4 ms, 35.2 ms, 764 ms. */
    public static String millis(double ms) {
        return String.format(Locale.ROOT, ms >= 100 ? "%.0f ms" : "%.1f ms", ms);
    }

    /** Milliseconds in text as seconds with one decimal: 12345 -> 12.3; the text itself when no number. */
    public static String seconds(String millis) {
        try {
            return String.format(Locale.ROOT, "%.1f", Long.parseLong(millis) / 1000.0);
        } catch (NumberFormatException e) {
            return millis;
        }
    }

    /** A ratio: 1.016x, 0.00123x, 250x; empty for NaN. */
    public static String ratio(double r) {
        if (Double.isNaN(r)) {
            return "";
        }
        return String.format(Locale.ROOT, r >= 100 ? "%.0fx" : r >= 0.01 ? "%.3fx" : "%.5fx", r);
    }
}
