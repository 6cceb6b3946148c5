package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.bench.Figure.Side;
import dev.floe.samples.ChildJvm;
import dev.floe.samples.Units;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part 1, growth: the benchmarks' ingest host at N single-file commits of 10 rows, in three modes:
 * unguarded {@code newFastAppend()}; Iceberg's own maintenance ({@code -Dbench.mode=maintained});
 * floe-guarded {@code newFastAppend()} (the agent, samples/floe.properties). Metadata on disk, data
 * files, commit p50/p99 over the first and last 100 commits, full-scan time, heap: growth.csv,
 * series-<mode>.csv (largest N) and chart.svg.
 */
final class GrowthBench {
    static final String[] MODES = {"unguarded", "maintained", "guarded"};

    /** growth.csv's columns after the mode: RESULT values of the run. */
    private static final List<String> CSV = List.of(
            "commits",
            "snapshots",
            "metadataBytes",
            "liveMetadataBytes",
            "maxMetadataBytes",
            "dataFiles",
            "rows",
            "firstP50Ms",
            "firstP99Ms",
            "lastP50Ms",
            "lastP99Ms",
            "p50Ms",
            "p99Ms",
            "scanMs",
            "peakHeapBytes",
            "peakLiveHeapBytes",
            "liveHeapBytes",
            "rebuildLiveHeapBytes",
            "elapsedMs",
            "maintenanceMs",
            "rebuilds",
            "manifests",
            "medianLiveHeapBytes",
            "missingHeapProbes");

    private GrowthBench() {}

    static void run(Harness h) throws Exception {
        int[] ns = h.sizes.growthCommits;
        int maxN = ns[ns.length - 1];
        Map<String, Map<Integer, Map<String, String>>> results = new LinkedHashMap<>();
        List<String> csv = new ArrayList<>();
        csv.add("mode," + String.join(",", CSV));
        for (int n : ns) {
            for (String mode : MODES) {
                Path dir = h.freshDir("growth-" + mode + "-" + n);
                Path series = dir.resolve("series.csv");
                List<String> jvm = new ArrayList<>();
                if (mode.equals("guarded")) {
                    jvm.add(h.agent());
                    if (h.sizes.growthTrigger > 0) {
                        jvm.add("-Dfloe.trigger.snapshots=" + h.sizes.growthTrigger);
                    }
                }
                jvm.add("-Dbench.mode=" + (mode.equals("maintained") ? "maintained" : "fast"));
                jvm.add("-Dbench.series-csv=" + series);
                jvm.add("-Dbench.series-every=" + h.sizes.seriesEvery);
                jvm.add("-Dbench.heap-probe-every=" + h.sizes.heapProbeEvery);
                String name = "growth-" + mode + "-" + n;
                ChildJvm.Run child = h.ingest(name, jvm, dir, n, 10, 1);
                Map<String, String> r = child.requireResult(name);
                List<double[]> rows = SeriesCsv.read(series);
                long maxMetadata = 0;
                for (double[] row : rows) {
                    maxMetadata = Math.max(maxMetadata, (long) row[5]);
                }
                r.put("maxMetadataBytes", Long.toString(maxMetadata));
                r.put("rebuilds", Integer.toString(child.rebuildLines().size()));
                results.computeIfAbsent(mode, m -> new LinkedHashMap<>()).put(n, r);
                csv.add(Harness.csvRow(mode, r, CSV));
                if (n == maxN) {
                    Files.copy(series, h.out.resolve("series-" + mode + ".csv"), StandardCopyOption.REPLACE_EXISTING);
                }
                System.out.printf(
                        Locale.ROOT,
                        "  %-10s N=%-5d metadata %s (live %s), data files %s in %s manifests, p50 first/last %s/%s ms,"
                                + " scan %s ms,"
                                + " heap: peak used %s, live %s, %d rebuilds%n",
                        mode,
                        n,
                        Units.bytes(r.get("metadataBytes")),
                        Units.bytes(r.get("liveMetadataBytes")),
                        r.get("dataFiles"),
                        r.get("manifests"),
                        r.get("firstP50Ms"),
                        r.get("lastP50Ms"),
                        r.get("scanMs"),
                        Units.bytes(r.get("peakHeapBytes")),
                        Units.bytes(r.get("liveHeapBytes")),
                        child.rebuildLines().size());
                noteMissingProbes(h, name, r, child);
                h.deleteUnlessKept(dir, series);
            }
        }
        h.write("growth.csv", csv);
        GrowthChart.draw(h.out, h.sizes.quick);

        addFigures(h, results, ns);
    }

    /**
     * A run whose heap probes could not all measure (no full collection followed their System.gc()
     * requests): said on the console and in the summary; its live-heap figures are of the others.
     */
    private static void noteMissingProbes(Harness h, String name, Map<String, String> r, ChildJvm.Run child) {
        int missing = (int) Harness.num(r, "missingHeapProbes");
        if (missing > 0) {
            h.note(String.format(
                    Locale.ROOT,
                    "%s: %d heap probe(s) missing (no full collection followed System.gc(); log %s); its"
                            + " live-heap figures are of the other probes",
                    name,
                    missing,
                    child.log()));
        }
    }

    /** The growth figures, each a RESULT value of one run against the same value of another. */
    private static void addFigures(Harness h, Map<String, Map<Integer, Map<String, String>>> results, int[] ns) {
        Figures f = new Figures(h.figures, results, ns);
        int maxN = f.maxN;
        // what a guarded table has on disk beyond its live metadata is what its rebuilds retired, kept
        // for floe.reclaim.grace (a reader in flight may still read it): the figure depends on that
        // window, so it is named, and the live share is reported on its own
        String grace = graceOf(h);
        f.perN("metadata on disk (reclaim grace " + grace + ")", "metadataBytes", "B", "unguarded", Double.NaN);
        f.add(
                "live metadata, guarded, vs unguarded metadata on disk, N=" + maxN,
                "B",
                f.run("guarded live", "guarded", maxN).side("liveMetadataBytes"),
                f.run("unguarded on disk", "unguarded", maxN).side("metadataBytes"),
                Aim.atMost(0.01));
        f.perN("metadata on disk", "metadataBytes", "B", "maintained", Double.NaN);
        f.atMaxN("live metadata", "liveMetadataBytes", "B", "unguarded");
        f.add(
                "max metadata on disk during the run",
                "maxMetadataBytes",
                "B",
                f.run("guarded N=" + maxN, "guarded", maxN),
                f.run("unguarded N=" + maxN, "unguarded", maxN),
                Aim.NONE);
        f.acrossN("metadata on disk flat in N", "guarded", Aim.atMost(1.5, "<= 1.5 (flat)"));
        f.acrossN("metadata on disk growth in N", "unguarded", Aim.NONE);
        for (String mode : MODES) {
            Map<String, String> r = results.get(mode).get(maxN);
            Side last = Figure.side(mode + " last", Harness.num(r, "lastP50Ms"));
            Side first = Figure.side(mode + " first", Harness.num(r, "firstP50Ms"));
            Aim aim = mode.equals("guarded") ? Aim.atMost(1.1) : Aim.NONE;
            h.figures.add(Figure.of("1", "commit p50, last/first 100, N=" + maxN, "ms", last, first, aim));
            last = Figure.side(mode + " last", Harness.num(r, "lastP99Ms"));
            first = Figure.side(mode + " first", Harness.num(r, "firstP99Ms"));
            h.figures.add(Figure.of("1", "commit p99, last/first 100, N=" + maxN, "ms", last, first));
        }
        f.atMaxN("commit p50 last 100", "lastP50Ms", "ms", "unguarded");
        f.atMaxN("commit p50 last 100", "lastP50Ms", "ms", "maintained");
        f.atMaxN("data files", "dataFiles", "", "maintained");
        f.perN("full scan", "scanMs", "ms", "maintained", 0.2);
        f.perN("manifests a full scan opens", "manifests", "", "maintained", Double.NaN);
        f.atMaxN("full scan", "scanMs", "ms", "unguarded");
        // a probe that falls in a rebuild measures the rebuild's buffers (bounded by
        // floe.rebuild.row-group-max-bytes): those are reported apart from what the guard holds between
        String liveHeap = "peak live heap outside rebuilds (full GC every " + h.sizes.heapProbeEvery + " commits)";
        f.add(
                liveHeap + ", N=" + maxN,
                "liveHeapBytes",
                "B",
                f.run("guarded", "guarded", maxN),
                f.run("unguarded", "unguarded", maxN),
                Aim.atMost(1.2));
        f.atMaxN(liveHeap, "liveHeapBytes", "B", "maintained");
        f.add(
                "median live heap outside rebuilds (of the same probes), N=" + maxN,
                "medianLiveHeapBytes",
                "B",
                f.run("guarded", "guarded", maxN),
                f.run("unguarded", "unguarded", maxN),
                Aim.NONE);
        f.add(
                "peak live heap in a rebuild (probes that fell in one), N=" + maxN,
                "B",
                f.run("guarded in a rebuild", "guarded", maxN).side("rebuildLiveHeapBytes"),
                f.run("unguarded", "unguarded", maxN).side("liveHeapBytes"),
                Aim.NONE);
        f.atMaxN("peak used heap (sampled)", "peakHeapBytes", "B", "unguarded");
    }

    /** The floe.reclaim.grace of the guarded runs' configuration, as written there. */
    private static String graceOf(Harness h) {
        java.util.Properties floe = new java.util.Properties();
        try (java.io.Reader in = java.nio.file.Files.newBufferedReader(h.floeProperties)) {
            floe.load(in);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return floe.getProperty("floe.reclaim.grace", "5m (default)");
    }

    /** Part 1's figures: the same RESULT value of two runs (mode, N), the guarded run's mostly first. */
    private static final class Figures {
        final List<Figure> figures;
        final Map<String, Map<Integer, Map<String, String>>> results;
        final int[] ns;
        final int maxN;

        Figures(List<Figure> figures, Map<String, Map<Integer, Map<String, String>>> results, int[] ns) {
            this.figures = figures;
            this.results = results;
            this.ns = ns;
            this.maxN = ns[ns.length - 1];
        }

        /** The RESULT of mode {@code mode} at N, under {@code label}. */
        Run run(String label, String mode, int n) {
            return new Run(label, results.get(mode).get(n));
        }

        /** For every N, guarded against {@code other}; at the largest N aiming at ratio <= {@code limit}. */
        void perN(String name, String key, String unit, String other, double limit) {
            for (int n : ns) {
                Aim aim = n == maxN && !Double.isNaN(limit) ? Aim.atMost(limit) : Aim.NONE;
                add(name + ", N=" + n, key, unit, run("guarded", "guarded", n), run(other, other, n), aim);
            }
        }

        /** Guarded against {@code other} at the largest N, with no aim. */
        void atMaxN(String name, String key, String unit, String other) {
            add(name + ", N=" + maxN, key, unit, run("guarded", "guarded", maxN), run(other, other, maxN), Aim.NONE);
        }

        /** The metadata on disk of {@code mode} at the largest N against its own at the smallest. */
        void acrossN(String name, String mode, Aim aim) {
            Run largest = run(mode + " N=" + maxN, mode, maxN);
            add(name, "metadataBytes", "B", largest, run(mode + " N=" + ns[0], mode, ns[0]), aim);
        }

        void add(String name, String key, String unit, Run measured, Run against, Aim aim) {
            add(name, unit, measured.side(key), against.side(key), aim);
        }

        /** Two sides of part 1, whatever RESULT values they are. */
        void add(String name, String unit, Side measured, Side against, Aim aim) {
            figures.add(Figure.of("1", name, unit, measured, against, aim));
        }
    }

    /** One run's RESULT values, under the label its figures show. */
    private record Run(String label, Map<String, String> result) {
        static final java.util.Set<String> PROBED =
                java.util.Set.of("liveHeapBytes", "medianLiveHeapBytes", "rebuildLiveHeapBytes");

        /** A heap probe's figure of 0 or less is of no probe (all missing): not known. */
        Side side(String key) {
            double value = Harness.num(result, key);
            boolean probed = !PROBED.contains(key) || value > 0;
            return Figure.side(label, probed ? value : Double.NaN);
        }
    }
}
