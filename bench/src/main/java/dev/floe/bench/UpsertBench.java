package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.samples.ChildJvm;
import dev.floe.samples.Upsert;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part 8, upsert streams (issue 17): the sample upsert host ({@link Upsert}), whose every commit is
 * one row delta that adds 20 rows and equality-deletes the keys' earlier versions, N commits over
 * 2,000 keys, once without the agent and once with it, same settings:
 *
 * <ul>
 *   <li>full scan of the table after N commits (a reader in a JVM of its own, {@link ScanHost}),
 *       guarded / unguarded: what the deletes floe applies while it rebuilds save every reader;
 *   <li>rebuild attempts per successful rebuild (floe's "starts again" and "rebuilt" log lines):
 *       a rebuild that rebases the row deltas landing during it needs no second attempt;
 *   <li>append stall during a rebuild: each rebuild is placed in time by its log line and phases
 *       (as the stall part does), and its worst commit, minus the normal commit p50 (commits outside
 *       every rebuild), is its stall; the figure is the median over the rebuilds that had commits
 *       land during them, and the worst of them is shown too.
 * </ul>
 *
 * upsert.csv has both runs, upsert-rebuilds.csv each rebuild of the guarded run.
 */
final class UpsertBench {
    static final String TABLE = "bench.upserts";
    private static final int ROWS = 20;
    private static final int KEYS = 2_000;

    private UpsertBench() {}

    static void run(Harness h) throws Exception {
        int commits = h.sizes.upsertCommits;
        int trigger = h.sizes.upsertTrigger;
        List<String> csv = new ArrayList<>();
        csv.add("mode,commits,keys,rowsReadBack,snapshots,dataFiles,deleteFiles,eqDeleteFiles,scanMs,scans,"
                + "commitP50Ms,commitP99Ms,commitMaxMs,rebuilds,attemptsStartedAgain,busy,deletesSincePin");
        Map<String, Map<String, String>> scans = new LinkedHashMap<>();
        Map<String, Map<String, String>> results = new LinkedHashMap<>();
        int rebuilt = 0;
        int startedAgain = 0;
        int busy = 0;
        List<Figure> stallFigures = new ArrayList<>();
        for (String mode : List.of("unguarded", "guarded")) {
            String name = "upsert-" + mode;
            Path dir = h.freshDir(name);
            Path props = Harness.catalogProperties(dir);
            Path series = dir.resolve("series.csv");
            // the scan below reads the table; the host's own read-back would cost as much again
            List<String> jvm = new ArrayList<>(List.of("-Dingest.verify=false", "-Dupsert.series=" + series));
            if (mode.equals("guarded")) {
                jvm.addAll(List.of(h.agent(), "-Dfloe.trigger.snapshots=" + trigger));
            }
            ChildJvm.Run run = h.run(
                    name,
                    jvm,
                    Upsert.class,
                    List.of(
                            props.toString(),
                            TABLE,
                            Integer.toString(commits),
                            Integer.toString(ROWS),
                            Integer.toString(KEYS)));
            Map<String, String> r = run.requireResult(name);
            Map<String, String> scan = h.run(
                            name + "-scan",
                            List.of(),
                            ScanHost.class,
                            List.of(props.toString(), TABLE, "5", Integer.toString(h.sizes.upsertScanSeconds)))
                    .requireResult(name + "-scan");
            if (!scan.get("rows").equals(r.get("keys"))
                    || !scan.get("distinctIds").equals(r.get("keys"))) {
                throw new IllegalStateException(name + ": the scan read " + scan.get("rows") + " rows of "
                        + scan.get("distinctIds") + " keys, the host wrote " + r.get("keys") + " keys");
            }
            String log = run.output();
            int rebuilds = run.rebuildLines().size();
            int again = count(log, "floe: rebuild of " + TABLE + " starts again");
            int busyEnds = count(log, "floe: Table " + TABLE + " is busy: ");
            csv.add(String.join(
                    ",",
                    mode,
                    r.get("commits"),
                    r.get("keys"),
                    scan.get("rows"),
                    r.get("snapshots"),
                    r.get("dataFiles"),
                    r.get("deleteFiles"),
                    r.get("eqDeleteFiles"),
                    scan.get("scanMs"),
                    scan.get("scans"),
                    r.get("commitP50Ms"),
                    r.get("commitP99Ms"),
                    r.get("commitMaxMs"),
                    Integer.toString(rebuilds),
                    Integer.toString(again),
                    Integer.toString(busyEnds),
                    r.get("deletesSincePin")));
            System.out.printf(
                    Locale.ROOT,
                    "  %-9s %s commits: %s snapshots, %s data files, %s delete files; scan %s ms (%s scans);"
                            + " rebuilds %d, attempts started again %d, busy %d%n",
                    mode,
                    r.get("commits"),
                    r.get("snapshots"),
                    r.get("dataFiles"),
                    r.get("deleteFiles"),
                    scan.get("scanMs"),
                    scan.get("scans"),
                    rebuilds,
                    again,
                    busyEnds);
            results.put(mode, r);
            scans.put(mode, scan);
            if (mode.equals("guarded")) {
                rebuilt = rebuilds;
                startedAgain = again;
                busy = busyEnds;
                stallFigures = stall(h, run.rebuildLines(), series);
            }
            h.deleteUnlessKept(dir, null);
        }
        h.write("upsert.csv", csv);

        Map<String, String> guarded = scans.get("guarded");
        Map<String, String> unguarded = scans.get("unguarded");
        h.figures.add(Figure.of(
                "8",
                String.format(
                        Locale.ROOT,
                        "full scan after %d upsert commits (guarded: %s data, %s delete files; unguarded: %s, %s)",
                        commits,
                        guarded.get("dataFiles"),
                        guarded.get("deleteFiles"),
                        unguarded.get("dataFiles"),
                        unguarded.get("deleteFiles")),
                "ms",
                Figure.side("guarded", Harness.num(guarded, "scanMs")),
                Figure.side("unguarded", Harness.num(unguarded, "scanMs")),
                Aim.atMost(0.2)));
        Figure attempts = Figure.of(
                "8",
                "rebuild attempts per successful rebuild, upsert stream",
                "x",
                Figure.side("attempts", rebuilt + startedAgain),
                Figure.side("successful rebuilds", rebuilt),
                Aim.atMost(1.1));
        if (rebuilt == 0) {
            attempts = attempts.withRatio(Double.NaN).withNote("no rebuild succeeded; " + busy + " ended busy");
        }
        h.figures.add(attempts);
        h.figures.addAll(stallFigures);
        h.figures.add(Figure.of(
                "8",
                "snapshots after " + commits + " upsert commits",
                "",
                Figure.side("guarded", Harness.num(results.get("guarded"), "snapshots")),
                Figure.side("unguarded", Harness.num(results.get("unguarded"), "snapshots"))));
    }

    /** The append stall of each rebuild of the guarded run: upsert-rebuilds.csv, and its figures. */
    private static List<Figure> stall(Harness h, List<String> rebuildLines, Path series) throws IOException {
        List<RebuildWindows.Commit> commits = RebuildWindows.readSeries(series);
        List<RebuildWindows.Window> windows = RebuildWindows.of(
                rebuildLines, commits.isEmpty() ? 0 : (long) commits.get(0).endMs());
        // normal: commits outside every rebuild, past the first 20 (JIT warm-up)
        double p50 = Harness.percentile(RebuildWindows.outside(windows, commits, 20), 50);
        List<String> csv = new ArrayList<>();
        csv.add("rebuild,startEpochMs,durationMs,commitsDuring,worstMs,worstCommit,normalP50Ms,stallMs,phases");
        List<Double> stalls = new ArrayList<>();
        for (RebuildWindows.During d : RebuildWindows.during(windows, commits)) {
            double worst = d.worst() == null ? Double.NaN : d.worst().latencyMs();
            if (d.commits() > 0) {
                stalls.add(worst - p50);
            }
            csv.add(String.format(
                    Locale.ROOT,
                    "%d,%d,%d,%d,%.3f,%d,%.3f,%.3f,\"%s\"",
                    d.window().number(),
                    d.window().startMs(),
                    d.window().endMs() - d.window().startMs(),
                    d.commits(),
                    worst,
                    d.worst() == null ? 0 : d.worst().number(),
                    p50,
                    worst - p50,
                    d.window().phases()));
        }
        h.write("upsert-rebuilds.csv", csv);
        double median = Harness.percentile(stalls, 50);
        double max = stalls.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        System.out.printf(
                Locale.ROOT,
                "  stall: normal p50 %.1f ms; %d of %d rebuilds had commits during them: stall median %.1f ms,"
                        + " worst %.1f ms%n",
                p50,
                stalls.size(),
                windows.size(),
                median,
                max);
        List<Figure> figures = new ArrayList<>();
        figures.add(Figure.of(
                        "8",
                        "append stall during a rebuild that rebases deltas, median of " + stalls.size()
                                + " rebuilds (worst - normal)",
                        "ms",
                        Figure.side("worst, median rebuild", median + p50),
                        Figure.side("normal p50", p50),
                        Aim.judged("stall <= 100 ms", stalls.size() > 0 && median <= 100))
                .withNote(
                        stalls.isEmpty()
                                ? "no rebuild with commits during it"
                                : String.format(Locale.ROOT, "stall %.0f ms", median)));
        figures.add(Figure.of(
                        "8",
                        "append stall, the worst of those " + stalls.size() + " rebuilds",
                        "ms",
                        Figure.side("worst", max + p50),
                        Figure.side("normal p50", p50))
                .withNote(stalls.isEmpty() ? "none" : String.format(Locale.ROOT, "stall %.0f ms", max)));
        return figures;
    }

    private static int count(String text, String needle) {
        return (int) text.lines().filter(line -> line.contains(needle)).count();
    }
}
