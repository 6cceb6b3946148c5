package dev.floe.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/** A small hand-written SVG line chart: panels side by side, one shared legend, no library. */
final class SvgChart {
    /** One line: its label, colour and (x, y) points in order of x. */
    record Line(String label, String color, List<double[]> points) {}

    /** One panel: a title, a y-axis label, log or linear y, and its lines. */
    record Panel(
            String title,
            String xLabel,
            String yLabel,
            boolean logY,
            DoubleFunction<String> yFormat,
            List<Line> lines) {}

    /** A panel's size in pixels, and the margins of its plot area inside it. */
    private static final int PANEL_WIDTH = 480, PANEL_HEIGHT = 400;

    private static final int LEFT = 78, RIGHT = 18, TOP = 100, BOTTOM = 52;

    private SvgChart() {}

    static String render(String title, String subtitle, List<Panel> panels) {
        int width = panels.size() * PANEL_WIDTH;
        int height = PANEL_HEIGHT;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                        + " font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">%n",
                width,
                height,
                width,
                height));
        svg.append(String.format(
                Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        svg.append(text(width / 2.0, 20, "middle", 15, "bold", title));
        svg.append(text(width / 2.0, 38, "middle", 11, "normal", subtitle));
        // the legend, once, from the first panel's lines
        if (!panels.isEmpty()) {
            List<Line> lines = panels.get(0).lines();
            double total = 0;
            for (Line line : lines) {
                total += legendWidth(line);
            }
            double x = (width - total) / 2.0;
            for (Line line : lines) {
                svg.append(String.format(
                        Locale.ROOT,
                        "<line x1=\"%.1f\" y1=\"56\" x2=\"%.1f\" y2=\"56\" stroke=\"%s\" stroke-width=\"3\"/>%n",
                        x,
                        x + 22,
                        line.color()));
                svg.append(text(x + 28, 60, "start", 12, "normal", line.label()));
                x += legendWidth(line);
            }
        }
        for (int p = 0; p < panels.size(); p++) {
            svg.append(panel(panels.get(p), p * PANEL_WIDTH));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static String panel(Panel panel, int offsetX) {
        double x0 = offsetX + LEFT;
        double x1 = offsetX + PANEL_WIDTH - RIGHT;
        double y1 = TOP; // top of the plot area
        double y0 = PANEL_HEIGHT - BOTTOM; // bottom of the plot area
        double maxX = 1;
        double minY = Double.MAX_VALUE;
        double maxY = 0;
        for (Line line : panel.lines()) {
            for (double[] p : line.points()) {
                maxX = Math.max(maxX, p[0]);
                if (!panel.logY() || p[1] > 0) {
                    minY = Math.min(minY, p[1]);
                }
                maxY = Math.max(maxY, p[1]);
            }
        }
        if (minY == Double.MAX_VALUE) {
            minY = panel.logY() ? 1 : 0;
        }
        double xStep = niceStep(maxX / 4);
        double xMax = Math.ceil(maxX / xStep) * xStep;
        double yLo;
        double yHi;
        List<Double> yTicks = new ArrayList<>();
        if (panel.logY()) {
            yLo = Math.floor(Math.log10(Math.max(minY, 1)));
            yHi = Math.max(yLo + 1, Math.ceil(Math.log10(Math.max(maxY, 1))));
            for (double d = yLo; d <= yHi + 1e-9; d++) {
                yTicks.add(Math.pow(10, d));
            }
        } else {
            double step = niceStep(Math.max(maxY, 1e-9) / 5);
            yLo = 0;
            yHi = Math.ceil(maxY / step) * step;
            if (yHi == 0) {
                yHi = step;
            }
            for (double v = 0; v <= yHi + step / 2; v += step) {
                yTicks.add(v);
            }
        }
        final double loY = yLo;
        final double hiY = yHi;
        final double maxXAxis = xMax;
        java.util.function.DoubleUnaryOperator sx = x -> x0 + (x1 - x0) * x / maxXAxis;
        java.util.function.DoubleUnaryOperator sy = panel.logY()
                ? v -> y0 - (y0 - y1) * (Math.log10(Math.max(v, Math.pow(10, loY))) - loY) / (hiY - loY)
                : v -> y0 - (y0 - y1) * (v - loY) / (hiY - loY);

        StringBuilder svg = new StringBuilder();
        svg.append(text((x0 + x1) / 2, y1 - 8, "middle", 13, "bold", panel.title()));
        // grid and y ticks
        for (double tick : yTicks) {
            double y = sy.applyAsDouble(tick);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>%n",
                    x0,
                    y,
                    x1,
                    y));
            svg.append(text(x0 - 6, y + 4, "end", 11, "normal", panel.yFormat().apply(tick)));
        }
        // x ticks
        for (double v = 0; v <= xMax + xStep / 2; v += xStep) {
            double x = sx.applyAsDouble(v);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>%n",
                    x,
                    y0,
                    x,
                    y0 + 5));
            svg.append(text(x, y0 + 18, "middle", 11, "normal", String.format(Locale.ROOT, "%,d", (long) v)));
        }
        // axes
        svg.append(String.format(
                Locale.ROOT,
                "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"#333\"/>%n",
                x0,
                y1,
                x0,
                y0,
                x1,
                y0));
        svg.append(text((x0 + x1) / 2, y0 + 38, "middle", 12, "normal", panel.xLabel()));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\""
                        + " transform=\"rotate(-90 %.1f %.1f)\">%s</text>%n",
                offsetX + 16.0,
                (y0 + y1) / 2,
                offsetX + 16.0,
                (y0 + y1) / 2,
                escape(panel.yLabel())));
        // lines
        for (Line line : panel.lines()) {
            StringBuilder points = new StringBuilder();
            for (double[] p : line.points()) {
                if (panel.logY() && p[1] <= 0) {
                    continue;
                }
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", sx.applyAsDouble(p[0]), sy.applyAsDouble(p[1])));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\""
                            + " stroke-linejoin=\"round\"><title>%s</title></polyline>%n",
                    points.toString().trim(),
                    line.color(),
                    escape(line.label())));
        }
        return svg.toString();
    }

    private static double legendWidth(Line line) {
        return 28 + 7.0 * line.label().length() + 30;
    }

    /** 1, 2 or 5 times a power of ten, at least {@code rough}. */
    static double niceStep(double rough) {
        if (rough <= 0) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(rough)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * power >= rough) {
                return m * power;
            }
        }
        return 10 * power;
    }

    private static String text(double x, double y, String anchor, int size, String weight, String body) {
        return String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\" font-weight=\"%s\">%s</text>%n",
                x,
                y,
                anchor,
                size,
                weight,
                escape(body));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
