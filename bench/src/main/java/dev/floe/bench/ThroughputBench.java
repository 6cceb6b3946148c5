package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.bench.Figure.Side;
import dev.floe.samples.ChildJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part 2, throughput: rebuild rows/s and MB/s against plain parquet-java reading and writing the
 * same rows in the same JVM ({@link RebuildHost} throughput): throughput.csv.
 */
final class ThroughputBench {
    private ThroughputBench() {}

    static void run(Harness h) throws Exception {
        Path dir = h.freshDir("throughput");
        long rows = h.sizes.throughputRows;
        int files = h.sizes.throughputFiles;
        ChildJvm.Run child = h.run(
                "throughput",
                List.of(h.agent(), "-Dfloe.trigger.snapshots=" + (files + 1), "-Dfloe.merge.manifests=0"),
                RebuildHost.class,
                List.of(
                        "throughput",
                        Harness.catalogProperties(dir).toString(),
                        Long.toString(rows),
                        Integer.toString(files)));
        Map<String, String> r = child.requireResult("throughput");
        List<String> csv = new ArrayList<>();
        csv.add("round,side,rows,inputBytes,outputBytes,ms,rowsPerSec,mbPerSec");
        for (String round : List.of("warm", "measured")) {
            String p = round.equals("warm") ? "warm." : "";
            double input = Harness.num(r, p + "inputBytes");
            double pjMs = Harness.num(r, p + "pjReadWriteMs");
            double floeMs = Harness.num(r, p + "floeStreamMs");
            double floeRows = Harness.num(r, p + "floeRows");
            double floeInput = Harness.num(r, p + "floeInputBytes");
            csv.add(String.format(
                    Locale.ROOT,
                    "%s,parquet-java read only,%d,%d,,%s,%.0f,%.2f",
                    round,
                    rows,
                    (long) input,
                    r.get(p + "pjReadMs"),
                    rows / (Harness.num(r, p + "pjReadMs") / 1000),
                    input / 1e6 / (Harness.num(r, p + "pjReadMs") / 1000)));
            csv.add(String.format(
                    Locale.ROOT,
                    "%s,parquet-java read+write,%d,%d,%s,%.0f,%.0f,%.2f",
                    round,
                    rows,
                    (long) input,
                    r.get(p + "pjOutputBytes"),
                    pjMs,
                    rows / (pjMs / 1000),
                    input / 1e6 / (pjMs / 1000)));
            csv.add(String.format(
                    Locale.ROOT,
                    "%s,floe rebuild stream,%d,%d,%s,%.0f,%.0f,%.2f",
                    round,
                    (long) floeRows,
                    (long) floeInput,
                    r.get(p + "floeOutputBytes"),
                    floeMs,
                    floeRows / (floeMs / 1000),
                    floeInput / 1e6 / (floeMs / 1000)));
            System.out.printf(
                    Locale.ROOT,
                    "  %-8s parquet-java read %s ms, read+write %s ms; floe stream %s ms (rebuild %s ms)%n",
                    round,
                    r.get(p + "pjReadMs"),
                    r.get(p + "pjReadWriteMs"),
                    r.get(p + "floeStreamMs"),
                    r.get(p + "floeRebuildMs"));
        }
        h.write("throughput.csv", csv);
        addFigures(h, r, rows, files);
        h.deleteUnlessKept(dir, null);
    }

    /** The figures, from the measured round (the RESULT values without the "warm." prefix). */
    private static void addFigures(Harness h, Map<String, String> r, long rows, int files) {
        double input = Harness.num(r, "inputBytes");
        double pjSeconds = Harness.num(r, "pjReadWriteMs") / 1000;
        double floeMs = Harness.num(r, "floeStreamMs");
        double floeSeconds = floeMs / 1000;
        double floeRows = Harness.num(r, "floeRows");
        double floeInput = Harness.num(r, "floeInputBytes");
        String rowsName = String.format(Locale.ROOT, "rebuild rows/s (%,d rows, %d files)", rows, files);
        h.figures.add(againstParquetJava(rowsName, "rows/s", floeRows / floeSeconds, rows / pjSeconds));
        h.figures.add(againstParquetJava(
                "rebuild MB/s (input bytes)", "MB/s", floeInput / 1e6 / floeSeconds, input / 1e6 / pjSeconds));
        Side allPhases = Figure.side("floe all phases", Harness.num(r, "floeRebuildMs"));
        h.figures.add(Figure.of(
                "2", "rebuild, whole (all phases) vs stream", "ms", allPhases, Figure.side("floe stream", floeMs)));
        Side floeOutput = Figure.side("floe", Harness.num(r, "floeOutputBytes"));
        Side pjOutput = Figure.side("parquet-java", Harness.num(r, "pjOutputBytes"));
        h.figures.add(Figure.of("2", "output bytes", "B", floeOutput, pjOutput));
    }

    /** The floe stream's rate against parquet-java reading and writing the same rows: at least 0.8 of it. */
    private static Figure againstParquetJava(String name, String unit, double floe, double parquetJava) {
        return Figure.of(
                "2",
                name,
                unit,
                Figure.side("floe stream", floe),
                Figure.side("parquet-java read+write", parquetJava),
                Aim.atLeast(0.8));
    }
}
