package dev.floe.bench;

import dev.floe.samples.Units;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** One printed figure: a value, its comparison from the same run, the ratio, the aim. */
final class Figure {
    final String part;
    final String name;
    final String measured;
    final double value;
    final String comparison;
    final double comparisonValue;
    final String unit;
    final String aim;
    final Boolean met;
    final String note;

    private Figure(
            String part,
            String name,
            String measured,
            double value,
            String comparison,
            double comparisonValue,
            String unit,
            String aim,
            Boolean met,
            String note) {
        this.part = part;
        this.name = name;
        this.measured = measured;
        this.value = value;
        this.comparison = comparison;
        this.comparisonValue = comparisonValue;
        this.unit = unit;
        this.aim = aim;
        this.met = met;
        this.note = note;
    }

    /**
     * A figure whose aim is on the ratio: {@code limit > 0} means ratio <= limit, {@code limit < 0}
     * means ratio >= -limit, NaN means no aim.
     */
    static Figure ratio(
            String part,
            String name,
            String measured,
            double value,
            String comparison,
            double comparisonValue,
            String unit,
            double limit,
            String aim) {
        double ratio = value / comparisonValue;
        Boolean met = null;
        if (!Double.isNaN(limit)) {
            met = !Double.isNaN(ratio) && (limit > 0 ? ratio <= limit : ratio >= -limit);
        }
        return new Figure(part, name, measured, value, comparison, comparisonValue, unit, aim, met, null);
    }

    /** A figure whose aim was judged by the caller ({@code met}), with a note. */
    static Figure ratio(
            String part,
            String name,
            String measured,
            double value,
            String comparison,
            double comparisonValue,
            String unit,
            double ignored,
            String aim,
            Boolean met,
            String note) {
        return new Figure(part, name, measured, value, comparison, comparisonValue, unit, aim, met, note);
    }

    /** The ratio shown, when it is not value / comparisonValue (a median of paired ratios). */
    double ratioOverride = Double.NaN;

    double ratio() {
        return Double.isNaN(ratioOverride) ? value / comparisonValue : ratioOverride;
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
        String text = Units.ratio(ratio());
        if (note != null) {
            text = text.isEmpty() ? note : text + " (" + note + ")";
        }
        return text;
    }

    String metText() {
        return met == null ? "" : met ? "met" : "MISSED";
    }

    String csv() {
        return String.join(
                ",",
                part,
                quote(name),
                quote(measured),
                Double.isNaN(value) ? "" : Double.toString(value),
                quote(comparison),
                Double.isNaN(comparisonValue) ? "" : Double.toString(comparisonValue),
                unit,
                Double.isNaN(ratio()) ? "" : String.format(Locale.ROOT, "%.5f", ratio()),
                quote(aim),
                metText());
    }

    private static String quote(String s) {
        return s == null ? "" : s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    static String table(List<Figure> figures) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"#", "figure", "measured", "value", "against", "value", "ratio", "aim", ""});
        for (Figure f : figures) {
            rows.add(new String[] {
                f.part,
                f.name,
                f.measured,
                f.valueText(f.value),
                f.comparison,
                f.valueText(f.comparisonValue),
                f.ratioText(),
                f.aim,
                f.metText()
            });
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
                line.append(String.format(Locale.ROOT, "%" + (right ? "" : "-") + widths[c] + "s", cell))
                        .append("  ");
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
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    f.part,
                    f.name,
                    f.measured,
                    f.valueText(f.value),
                    f.comparison,
                    f.valueText(f.comparisonValue),
                    f.ratioText(),
                    f.aim,
                    f.met == null ? "" : f.met ? "met" : "**missed**"));
        }
        return md.toString();
    }
}
