package dev.floe.bench;

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
                List.of(h.agent(), "-Dfloe.trigger.snapshots=" + (files + 1)),
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
            if (round.equals("measured")) {
                h.figures.add(Figure.ratio(
                        "2",
                        String.format(Locale.ROOT, "rebuild rows/s (%,d rows, %d files)", rows, files),
                        "floe stream",
                        floeRows / (floeMs / 1000),
                        "parquet-java read+write",
                        rows / (pjMs / 1000),
                        "rows/s",
                        -0.8,
                        ">= 0.8"));
                h.figures.add(Figure.ratio(
                        "2",
                        "rebuild MB/s (input bytes)",
                        "floe stream",
                        floeInput / 1e6 / (floeMs / 1000),
                        "parquet-java read+write",
                        input / 1e6 / (pjMs / 1000),
                        "MB/s",
                        -0.8,
                        ">= 0.8"));
                h.figures.add(Figure.ratio(
                        "2",
                        "rebuild, whole (all phases) vs stream",
                        "floe all phases",
                        Harness.num(r, "floeRebuildMs"),
                        "floe stream",
                        floeMs,
                        "ms",
                        Double.NaN,
                        ""));
                h.figures.add(Figure.ratio(
                        "2",
                        "output bytes",
                        "floe",
                        Harness.num(r, "floeOutputBytes"),
                        "parquet-java",
                        Harness.num(r, "pjOutputBytes"),
                        "B",
                        Double.NaN,
                        ""));
            }
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
        h.deleteUnlessKept(dir, null);
    }
}
