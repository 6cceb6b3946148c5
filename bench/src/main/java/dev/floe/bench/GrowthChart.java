package dev.floe.bench;

import dev.floe.samples.Units;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The growth benchmark's chart: metadata on disk and commit latency against commits, a line per mode. */
final class GrowthChart {
    static final Map<String, String> MODE_LABEL = Map.of(
            "unguarded", "unguarded newFastAppend",
            "maintained", "Iceberg maintenance",
            "guarded", "floe-guarded newFastAppend");
    static final Map<String, String> MODE_COLOR =
            Map.of("unguarded", "#d62728", "maintained", "#1f77b4", "guarded", "#2ca02c");

    private GrowthChart() {}

    /** Redraws out/chart.svg from the series-<mode>.csv files in {@code out}. */
    static void draw(Path out, boolean quick) throws IOException {
        List<SvgChart.Line> metadata = new ArrayList<>();
        List<SvgChart.Line> latency = new ArrayList<>();
        int commits = 0;
        for (String mode : GrowthBench.MODES) {
            Path file = out.resolve("series-" + mode + ".csv");
            if (!Files.isRegularFile(file)) {
                continue;
            }
            List<double[]> rows = SeriesCsv.read(file);
            commits = Math.max(commits, rows.size());
            List<double[]> bytes = new ArrayList<>();
            List<double[]> p50 = new ArrayList<>();
            double[] window = new double[50];
            for (int i = 0; i < rows.size(); i++) {
                double[] row = rows.get(i);
                if (row[5] >= 0) {
                    bytes.add(new double[] {row[0], row[5]});
                }
                window[i % window.length] = row[2];
                if (i + 1 >= window.length) {
                    double[] sorted = window.clone();
                    Arrays.sort(sorted);
                    p50.add(new double[] {row[0], (sorted[24] + sorted[25]) / 2});
                }
            }
            String label = MODE_LABEL.get(mode);
            metadata.add(new SvgChart.Line(label, MODE_COLOR.get(mode), bytes));
            latency.add(new SvgChart.Line(label, MODE_COLOR.get(mode), p50));
        }
        if (metadata.isEmpty()) {
            System.out.println("bench: no series-*.csv in " + out + ": no chart");
            return;
        }
        String svg = SvgChart.render(
                String.format(Locale.ROOT, "The sample ingest, %,d single-file commits of 10 rows", commits),
                String.format(
                        Locale.ROOT,
                        "%s%s, %s; floe-guarded: samples/floe.properties (rebuild at %s snapshots)",
                        quick ? "QUICK smoke-test sizes, " : "",
                        LocalDate.now(),
                        Harness.machine(),
                        quick ? Integer.toString(new Sizes(true).growthTrigger) : "200"),
                List.of(
                        new SvgChart.Panel(
                                "Metadata on disk (log scale)",
                                "commits",
                                "bytes under metadata/",
                                true,
                                Units::tickBytes,
                                metadata),
                        new SvgChart.Panel(
                                "Commit latency, p50 of the last 50 commits",
                                "commits",
                                "milliseconds",
                                false,
                                v -> String.format(Locale.ROOT, v == Math.rint(v) ? "%.0f" : "%.1f", v),
                                latency)));
        Files.writeString(out.resolve("chart.svg"), svg);
        System.out.println("  chart: " + out.resolve("chart.svg"));
    }
}
