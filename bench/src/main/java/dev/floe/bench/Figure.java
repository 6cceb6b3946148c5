package dev.floe.bench;

import dev.floe.samples.Units;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.DoublePredicate;

/**
 * One printed figure: a value, its comparison from the same run, the ratio shown (value /
 * comparison unless a caller overrides it, e.g. with a median of paired ratios), the aim, and a
 * note on the ratio (null: none).
 */
record Figure(String part, String name, String unit, Side measured, Side against, Aim aim, String note, double ratio) {
    /** One side of the comparison: what it is, and its value (NaN: not known). */
    record Side(String label, double value) {}

    /**
     * What the figure aims at: the text shown, and the test on the ratio that says whether it is met
     * (null: no aim).
     */
    record Aim(String text, DoublePredicate test) {
        static final Aim NONE = new Aim("", null);

        /** ratio <= limit. */
        static Aim atMost(double limit) {
            return atMost(limit, "<= " + plain(limit));
        }

        static Aim atMost(double limit, String text) {
            return new Aim(text, ratio -> ratio <= limit);
        }

        /** ratio >= limit. */
        static Aim atLeast(double limit) {
            return atLeast(limit, ">= " + plain(limit));
        }

        static Aim atLeast(double limit, String text) {
            return new Aim(text, ratio -> ratio >= limit);
        }

        /** An aim the caller judged itself, on something other than the ratio. */
        static Aim judged(String text, boolean met) {
            return new Aim(text, ratio -> met);
        }

        private static String plain(double limit) {
            return BigDecimal.valueOf(limit).stripTrailingZeros().toPlainString();
        }
    }

    static Side side(String label, double value) {
        return new Side(label, value);
    }

    /** {@code measured} against {@code against}, with no aim. */
    static Figure of(String part, String name, String unit, Side measured, Side against) {
        return of(part, name, unit, measured, against, Aim.NONE);
    }

    static Figure of(String part, String name, String unit, Side measured, Side against, Aim aim) {
        return new Figure(part, name, unit, measured, against, aim, null, measured.value() / against.value());
    }

    Figure withNote(String text) {
        return new Figure(part, name, unit, measured, against, aim, text, ratio);
    }

    Figure withRatio(double shown) {
        return new Figure(part, name, unit, measured, against, aim, note, shown);
    }

    /** Whether the aim is met; null when there is none. */
    Boolean met() {
        return aim.test() == null ? null : aim.test().test(ratio);
    }

    String valueText(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        switch (unit) {
            case "B":
                return Units.bytes(v);
            case "ms":
                return Units.millis(v);
            case "rows/s":
                return String.format(Locale.ROOT, "%,.0f rows/s", v);
            case "MB/s":
                return String.format(Locale.ROOT, "%.1f MB/s", v);
            default:
                return String.format(Locale.ROOT, v == Math.rint(v) ? "%,.0f" : "%.2f", v);
        }
    }

    String ratioText() {
        String text = Units.ratio(ratio);
        if (note != null) {
            text = text.isEmpty() ? note : text + " (" + note + ")";
        }
        return text;
    }

    String metText() {
        return metText("MISSED");
    }

    private String metText(String missed) {
        Boolean met = met();
        return met == null ? "" : met ? "met" : missed;
    }

    /** The figure's row in the printed table and in summary.md, an aim missed shown as {@code missed}. */
    private String[] cells(String missed) {
        return new String[] {
            part,
            name,
            measured.label(),
            valueText(measured.value()),
            against.label(),
            valueText(against.value()),
            ratioText(),
            aim.text(),
            metText(missed)
        };
    }

    String csv() {
        return String.join(
                ",",
                part,
                quote(name),
                quote(measured.label()),
                Double.isNaN(measured.value()) ? "" : Double.toString(measured.value()),
                quote(against.label()),
                Double.isNaN(against.value()) ? "" : Double.toString(against.value()),
                unit,
                Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.5f", ratio),
                quote(aim.text()),
                metText());
    }

    private static String quote(String s) {
        return s == null ? "" : s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    /**
     * The figures as a text table, columns padded to their widest cell; with no figures, its header
     * alone (an empty table).
     */
    static String table(List<Figure> figures) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"#", "figure", "measured", "value", "against", "value", "ratio", "aim", ""});
        for (Figure f : figures) {
            rows.add(f.cells("MISSED"));
        }
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < widths.length; c++) {
                boolean right = c == 3 || c == 5 || c == 6;
                String cell = rows.get(r)[c];
                // padded by hand: a column whose cells are all empty has width 0, which no %s format takes
                String pad = " ".repeat(widths[c] - cell.length());
                line.append(right ? pad + cell : cell + pad).append("  ");
            }
            text.append(line.toString().replaceAll("\\s+$", "")).append('\n');
            if (r == 0) {
                text.append("-".repeat(Arrays.stream(widths).sum() + 2 * widths.length))
                        .append('\n');
            }
        }
        return text.toString();
    }

    static String markdown(List<Figure> figures) {
        StringBuilder md = new StringBuilder();
        md.append("| # | figure | measured | value | against | value | ratio | aim | |\n");
        md.append("|---|---|---|--:|---|--:|--:|---|---|\n");
        for (Figure f : figures) {
            md.append("| ")
                    .append(String.join(" | ", f.cells("**missed**")))
                    .append(" |")
                    .append(System.lineSeparator());
        }
        return md.toString();
    }
}
