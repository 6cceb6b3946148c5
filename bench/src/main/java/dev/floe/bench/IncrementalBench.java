package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.samples.ChildJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Part 7, incremental rebuilds: what a rebuild costs once settled files are kept as they are.
 *
 * <ul>
 *   <li>Write amplification over a long ingest (50 rebuilds and more of a growing table): bytes of
 *       data written, by the host and by floe's rebuilds, per byte the host wrote; incremental
 *       (unpartitioned, and partitioned by hour) against a rewrite of the whole table at every
 *       rebuild ({@code floe.rebuild.full-every=1}, what floe did before). incremental-wa.csv has
 *       each rebuild's running figure.
 *   <li>Full scan of the long ingest's table once rebuilt incrementally ({@code compact}) against
 *       the same table rewritten whole ({@code compact --full}), both with the ingest's target file
 *       size.
 *   <li>One rebuild of the same new data (100 commits of 1,000 rows) on a settled 20 M-row table
 *       against a settled 1 M-row one: incremental-rebuild.csv.
 * </ul>
 */
final class IncrementalBench {
    static final String TABLE = "bench.events";
    private static final Pattern WRITTEN = Pattern.compile("written (\\d+) bytes");
    private static final Pattern KEPT = Pattern.compile("kept (\\d+) files of (\\d+) rows");
    private static final Pattern ROWS =
            Pattern.compile("as they were, rows (\\d+) \\(pruned (\\d+), carried (\\d+) in");

    private IncrementalBench() {}

    /** One long-ingest mode: its name, and the agent settings and ingest options that make it. */
    private record Mode(String name, String label, List<String> jvm) {}

    static void run(Harness h) throws Exception {
        int commits = h.sizes.incrementalCommits;
        int rows = h.sizes.incrementalRows;
        int every = h.sizes.incrementalEvery;
        String target = h.sizes.incrementalTarget;
        List<Mode> modes = List.of(
                new Mode("incremental", "incremental, unpartitioned", List.of()),
                new Mode("hourly", "incremental, partitioned by hour(ts)", List.of("-Dingest.partition=hour")),
                new Mode("whole", "whole table at every rebuild", List.of("-Dfloe.rebuild.full-every=1")));
        List<String> csv = new ArrayList<>();
        csv.add("mode,rebuild,tableRows,writtenBytes,floeBytes,hostBytes,amplification");
        Map<String, double[]> amplification = new LinkedHashMap<>();
        Map<String, Map<String, String>> results = new LinkedHashMap<>();
        Path scanned = null;
        for (Mode mode : modes) {
            String name = "incremental-" + mode.name();
            Path dir = h.freshDir(name);
            List<String> jvm = new ArrayList<>(List.of(
                    h.agent(),
                    "-Dfloe.trigger.snapshots=" + every,
                    "-Dfloe.trigger.data-files=100000",
                    "-Dfloe.trigger.metadata-bytes=1GiB",
                    "-Dfloe.trigger.min-interval=0s",
                    "-Dfloe.rebuild.target-file-bytes=" + target,
                    "-Dingest.verify=false"));
            jvm.addAll(mode.jvm());
            ChildJvm.Run run = h.ingest(name, jvm, dir, commits, rows, 1);
            Map<String, String> r = run.requireResult(name);
            results.put(mode.name(), r);
            double hostTotal = Harness.num(r, "hostDataBytes");
            double total = (double) commits * rows;
            long floe = 0;
            List<Double> series = new ArrayList<>();
            int k = 0;
            for (String line : run.rebuildLines()) {
                long written = group(WRITTEN, line, 1);
                Matcher m = ROWS.matcher(line);
                if (!m.find()) {
                    throw new IllegalStateException("cannot read the rows of rebuild line " + line);
                }
                long tableRows = group(KEPT, line, 2) + Long.parseLong(m.group(1)) + Long.parseLong(m.group(3));
                floe += written;
                // the host writes the same bytes per row all along: its bytes so far, from the rows so far
                double host = hostTotal * tableRows / total;
                double wa = (host + floe) / host;
                series.add(wa);
                k += 1;
                csv.add(String.format(
                        Locale.ROOT, "%s,%d,%d,%d,%d,%.0f,%.3f", mode.name(), k, tableRows, written, floe, host, wa));
            }
            if (series.size() < 2) {
                throw new IllegalStateException(name + " saw " + series.size() + " rebuilds; see " + run.log());
            }
            double end = series.get(series.size() - 1);
            double half = series.get(series.size() / 2 - 1);
            amplification.put(mode.name(), new double[] {end, half, series.size()});
            System.out.printf(
                    Locale.ROOT,
                    "  %-11s %d rebuilds: %.2f bytes written per byte ingested (%.2f at rebuild %d)%n",
                    mode.name(),
                    series.size(),
                    end,
                    half,
                    series.size() / 2);
            if (mode.name().equals("incremental")) {
                scanned = dir;
            } else {
                h.deleteUnlessKept(dir, null);
            }
        }
        h.write("incremental-wa.csv", csv);
        for (Mode mode : modes) {
            double[] a = amplification.get(mode.name());
            boolean incremental = !mode.name().equals("whole");
            h.figures.add(Figure.of(
                    "7",
                    "write amplification, " + mode.label() + ", " + (int) a[2] + " rebuilds",
                    "x",
                    Figure.side("host + floe data bytes", a[0] * 1),
                    Figure.side("host data bytes", 1),
                    incremental ? Aim.atMost(3) : Aim.NONE));
            h.figures.add(Figure.of(
                    "7",
                    "write amplification flat, " + mode.label(),
                    "x",
                    Figure.side("after " + (int) a[2] + " rebuilds", a[0]),
                    Figure.side("after " + (int) a[2] / 2, a[1]),
                    incremental ? Aim.atMost(1.1, "<= 1.1 (flat)") : Aim.NONE));
        }
        scan(h, scanned, List.of("-Dfloe.rebuild.target-file-bytes=" + target));
        rebuildTime(h);
    }

    /**
     * The long ingest's table, rebuilt once more as the agent would (the commits since its last
     * rebuild packed, settled files kept) and scanned; then rewritten whole and scanned again.
     */
    private static void scan(Harness h, Path dir, List<String> target) throws Exception {
        Path props = Harness.catalogProperties(dir);
        h.cli("incremental-last", target, List.of("compact", "--catalog", props.toString(), TABLE));
        Map<String, String> incremental = h.run(
                        "incremental-scan", List.of(), IncrementalHost.class, List.of("scan", props.toString(), TABLE))
                .requireResult("incremental-scan");
        h.cli("incremental-full", target, List.of("compact", "--full", "--catalog", props.toString(), TABLE));
        Map<String, String> full = h.run(
                        "incremental-scan-full",
                        List.of(),
                        IncrementalHost.class,
                        List.of("scan", props.toString(), TABLE))
                .requireResult("incremental-scan-full");
        if (!incremental.get("rows").equals(full.get("rows"))) {
            throw new IllegalStateException(
                    "the scans read " + incremental.get("rows") + " and " + full.get("rows") + " rows");
        }
        h.write(
                "incremental-scan.csv",
                List.of(
                        "table,scanMs,rows,dataFiles",
                        "incremental," + incremental.get("scanMs") + "," + incremental.get("rows") + ","
                                + incremental.get("dataFiles"),
                        "full," + full.get("scanMs") + "," + full.get("rows") + "," + full.get("dataFiles")));
        h.figures.add(Figure.of(
                "7",
                "full scan after the long ingest (" + incremental.get("dataFiles") + " data files)",
                "ms",
                Figure.side("rebuilt incrementally", Harness.num(incremental, "scanMs")),
                Figure.side("rewritten whole (" + full.get("dataFiles") + " files)", Harness.num(full, "scanMs")),
                Aim.atMost(1.2)));
        h.deleteUnlessKept(dir, null);
    }

    /** One rebuild of the same new data on a settled large and a settled small table. */
    private static void rebuildTime(Harness h) throws Exception {
        long[] sizes = h.sizes.incrementalTables;
        int appends = h.sizes.incrementalAppendCommits;
        List<String> csv = new ArrayList<>();
        csv.add("tableRows,rebuildMs,keptFiles,rewrittenRows,writtenBytes,phases");
        Map<Long, Double> times = new LinkedHashMap<>();
        for (long size : sizes) {
            String name = "incremental-rebuild-" + size;
            Path dir = h.freshDir(name);
            Path props = Harness.catalogProperties(dir);
            int files = (int) Math.max(1, size / 1_000_000);
            h.run(
                            name + "-build",
                            List.of(),
                            IncrementalHost.class,
                            List.of("build", props.toString(), TABLE, Long.toString(size), Integer.toString(files)))
                    .requireResult(name + "-build");
            h.cli(name + "-settle", List.of("compact", "--full", "--catalog", props.toString(), TABLE));
            h.run(
                            name + "-append",
                            List.of(),
                            IncrementalHost.class,
                            List.of("append", props.toString(), TABLE, Integer.toString(appends), "1000"))
                    .requireResult(name + "-append");
            ChildJvm.Run rebuild = h.cli(name + "-rebuild", List.of("compact", "--catalog", props.toString(), TABLE));
            String line = rebuild.rebuildLines().get(rebuild.rebuildLines().size() - 1);
            RebuildReport report = RebuildReport.parse(line);
            long ms = report.totalMs() - report.phases().getOrDefault("reclaim", 0L);
            times.put(size, (double) ms);
            csv.add(String.format(
                    Locale.ROOT,
                    "%d,%d,%d,%s,%d,\"%s\"",
                    size,
                    ms,
                    group(KEPT, line, 1),
                    report.rows(),
                    group(WRITTEN, line, 1),
                    report.phases()));
            System.out.printf(
                    Locale.ROOT,
                    "  %,d rows: rebuild of %,d new rows in %d ms (%s)%n",
                    size,
                    appends * 1000,
                    ms,
                    report.phases());
            h.deleteUnlessKept(dir, null);
        }
        h.write("incremental-rebuild.csv", csv);
        h.figures.add(Figure.of(
                "7",
                "rebuild of " + appends + " commits of new rows, settled table " + millions(sizes[1]) + " M / "
                        + millions(sizes[0]) + " M rows (reclaim listing apart)",
                "ms",
                Figure.side(sizes[1] + " rows", times.get(sizes[1])),
                Figure.side(sizes[0] + " rows", times.get(sizes[0])),
                Aim.atMost(1.5)));
    }

    /** {@code rows} in millions, as few digits as it takes: 20, 1, 0.05. */
    private static String millions(long rows) {
        return java.math.BigDecimal.valueOf(rows, 6).stripTrailingZeros().toPlainString();
    }

    private static long group(Pattern pattern, String line, int group) {
        Matcher m = pattern.matcher(line);
        if (!m.find()) {
            throw new IllegalStateException("'" + pattern + "' not in rebuild line " + line);
        }
        return Long.parseLong(m.group(group));
    }
}
