package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.bench.Figure.Side;
import dev.floe.samples.ChildJvm;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Part 4, append stall: an appender's worst commit latency while a rebuild of a large table runs,
 * minus its normal (p50) latency before the rebuild. The table was rebuilt once before (the operator
 * CLI's {@code compact --full}), as a guarded table is between its rebuilds: its files are settled,
 * and the rebuild measured packs the commits since; the rebuild is placed in time by floe's log
 * line and its phases: stall.csv.
 */
final class StallBench {
    private static final Pattern LOG_TIME = Pattern.compile("^(\\d{2}):(\\d{2}):(\\d{2})\\.(\\d{3})\\b");

    private StallBench() {}

    static void run(Harness h) throws Exception {
        List<String> csv = new ArrayList<>();
        csv.add("tableRows,normalP50Ms,worstMs,stallMs,worstCommit,p99DuringMs,commitsDuringRebuild,snapshotsAtRebuild,"
                + "carriedFiles,rebuildMs,streamMs,commitPhaseMs,swapPhaseMs,firstCollapseAt,commits,rowsReadBack");
        List<double[]> stalls = new ArrayList<>();
        for (long tableRows : h.sizes.stallRows) {
            String name = "stall-" + tableRows;
            Path dir = h.freshDir(name);
            int preload = h.sizes.stallPreloadCommits;
            h.ingest(name + "-preload", List.of("-Dingest.verify=false"), dir, preload, tableRows / preload, 2)
                    .requireResult(name + "-preload");
            // as a guarded table is between rebuilds: rebuilt before (its files settled), one snapshot
            h.cli(
                    name + "-settle",
                    List.of(
                            "compact",
                            "--full",
                            "--catalog",
                            Harness.catalogProperties(dir).toString(),
                            "bench.events"));
            Path series = dir.resolve("series.csv");
            ChildJvm.Run run = h.ingest(
                    name,
                    List.of(
                            h.agent(),
                            "-Dfloe.trigger.snapshots=" + (1 + h.sizes.stallWarmCommits),
                            "-Dbench.series-csv=" + series,
                            "-Dbench.series-every=1000000",
                            "-Dbench.stop-after-collapse=" + h.sizes.stallAfter),
                    dir,
                    1_000_000,
                    10,
                    1);
            Map<String, String> r = run.requireResult(name);
            if (run.rebuildLines().isEmpty() || "0".equals(r.get("firstCollapseAt"))) {
                throw new IllegalStateException("no rebuild was seen in " + run.log());
            }
            String line = run.rebuildLines().get(0);
            RebuildReport report = RebuildReport.parse(line);
            Map<String, Long> phases = report.phases();
            List<double[]> rows = SeriesCsv.read(series);
            long logged = logEpochMillis(line, (long) rows.get(0)[1]);
            long swapEnd = logged - phases.getOrDefault("reclaim", 0L);
            long rebuildStart = swapEnd;
            for (Map.Entry<String, Long> phase : phases.entrySet()) {
                if (!phase.getKey().equals("reclaim")) {
                    rebuildStart -= phase.getValue();
                }
            }
            // normal: commits that ended before the rebuild began, past the first 20 (JIT warm-up)
            List<Double> before = new ArrayList<>();
            List<Double> during = new ArrayList<>();
            double worst = 0;
            int worstCommit = 0;
            for (double[] row : rows) {
                double end = row[1];
                double begin = end - row[2];
                if (end < rebuildStart) {
                    if (row[0] > 20) {
                        before.add(row[2]);
                    }
                } else if (begin <= swapEnd) {
                    during.add(row[2]);
                    if (row[2] > worst) {
                        worst = row[2];
                        worstCommit = (int) row[0];
                    }
                }
            }
            double normal = Harness.percentile(before, 50);
            double stall = worst - normal;
            stalls.add(new double[] {tableRows, stall});
            String carriedFiles = report.carriedFiles();
            csv.add(String.format(
                    Locale.ROOT,
                    "%d,%.3f,%.3f,%.3f,%d,%.3f,%d,%s,%s,%d,%d,%d,%d,%s,%s,%s",
                    tableRows,
                    normal,
                    worst,
                    stall,
                    worstCommit,
                    Harness.percentile(during, 99),
                    during.size(),
                    report.snapshotsBefore(),
                    carriedFiles,
                    report.totalMs(),
                    phases.getOrDefault("stream", -1L),
                    phases.getOrDefault("commit", -1L),
                    phases.getOrDefault("swap", -1L),
                    r.get("firstCollapseAt"),
                    r.get("commits"),
                    r.get("rows")));
            System.out.printf(
                    Locale.ROOT,
                    "  %,11d rows: normal p50 %.1f ms, worst during the rebuild %.1f ms (commit %d of %d during it),"
                            + " stall %.1f ms; rebuild %s%n",
                    tableRows,
                    normal,
                    worst,
                    worstCommit,
                    during.size(),
                    stall,
                    phasesText(phases, carriedFiles));
            String stallName = String.format(Locale.ROOT, "append stall, %,d-row table (worst - normal)", tableRows);
            h.figures.add(Figure.of(
                            "4",
                            stallName,
                            "ms",
                            Figure.side("worst", worst),
                            Figure.side("normal p50", normal),
                            Aim.judged("stall <= 100 ms", stall <= 100))
                    .withNote(String.format(Locale.ROOT, "stall %.0f ms", stall)));
            Side hold = Figure.side("commit+swap", phases.getOrDefault("commit", 0L) + phases.getOrDefault("swap", 0L));
            Side stream = Figure.side("stream", phases.getOrDefault("stream", 0L));
            String holdName = String.format(Locale.ROOT, "rebuild gate hold, %,d-row table", tableRows);
            h.figures.add(Figure.of("4", holdName, "ms", hold, stream));
            h.deleteUnlessKept(dir, null);
        }
        h.write("stall.csv", csv);
        if (stalls.size() > 1) {
            double first = stalls.get(0)[1];
            double last = stalls.get(stalls.size() - 1)[1];
            boolean flat = last <= Math.max(1.5 * first, first + 20);
            Side largest =
                    Figure.side(String.format(Locale.ROOT, "%,d rows", (long) stalls.get(stalls.size() - 1)[0]), last);
            Side smallest = Figure.side(String.format(Locale.ROOT, "%,d rows", (long) stalls.get(0)[0]), first);
            Aim aim = Aim.judged("<= 1.5 or +20 ms", flat);
            h.figures.add(Figure.of("4", "append stall flat in table size", "ms", largest, smallest, aim));
        }
    }

    /** The epoch milliseconds of a log line's HH:mm:ss.SSS, on the day nearest to {@code near}. */
    static long logEpochMillis(String line, long near) {
        Matcher m = LOG_TIME.matcher(line);
        if (!m.find()) {
            throw new IllegalStateException("no time of day at the start of the log line: " + line);
        }
        LocalTime time = LocalTime.of(
                Integer.parseInt(m.group(1)),
                Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3)),
                Integer.parseInt(m.group(4)) * 1_000_000);
        ZoneId zone = ZoneId.systemDefault();
        LocalDate day = Instant.ofEpochMilli(near).atZone(zone).toLocalDate();
        long best = 0;
        for (int d = -1; d <= 1; d++) {
            long candidate =
                    ZonedDateTime.of(day.plusDays(d), time, zone).toInstant().toEpochMilli();
            if (d == -1 || Math.abs(candidate - near) < Math.abs(best - near)) {
                best = candidate;
            }
        }
        return best;
    }

    private static String phasesText(Map<String, Long> phases, String carriedFiles) {
        StringBuilder text = new StringBuilder();
        phases.forEach((k, v) -> text.append(k).append('=').append(v).append("ms "));
        return text.append("carried ").append(carriedFiles).append(" files").toString();
    }
}
