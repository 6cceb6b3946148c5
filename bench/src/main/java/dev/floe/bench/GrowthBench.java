package dev.floe.bench;

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
    /** A full collection after every this many commits measures the live heap. */
    static final int HEAP_PROBE_EVERY = 100;

    static final String[] MODES = {"unguarded", "maintained", "guarded"};

    private GrowthBench() {}

    static void run(Harness h) throws Exception {
        int[] ns = h.sizes.growthCommits;
        int maxN = ns[ns.length - 1];
        Map<String, Map<Integer, Map<String, String>>> results = new LinkedHashMap<>();
        List<String> csv = new ArrayList<>();
        csv.add("mode,commits,snapshots,metadataBytes,liveMetadataBytes,maxMetadataBytes,dataFiles,rows,"
                + "firstP50Ms,firstP99Ms,lastP50Ms,lastP99Ms,p50Ms,p99Ms,scanMs,peakHeapBytes,"
                + "peakLiveHeapBytes,liveHeapBytes,elapsedMs,maintenanceMs,rebuilds");
        for (int n : ns) {
            for (String mode : MODES) {
                Path dir = h.freshDir("growth-" + mode + "-" + n);
                Path series = dir.resolve("series.csv");
                List<String> jvm = new ArrayList<>();
                if (mode.equals("guarded")) {
                    jvm.add(h.agent());
                    if (h.sizes.quick) {
                        jvm.add("-Dfloe.trigger.snapshots=50");
                    }
                }
                jvm.add("-Dbench.mode=" + (mode.equals("maintained") ? "maintained" : "fast"));
                jvm.add("-Dbench.series-csv=" + series);
                jvm.add("-Dbench.series-every=" + h.sizes.seriesEvery);
                jvm.add("-Dbench.heap-probe-every=" + HEAP_PROBE_EVERY);
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
                csv.add(String.join(
                        ",",
                        mode,
                        r.get("commits"),
                        r.get("snapshots"),
                        r.get("metadataBytes"),
                        r.get("liveMetadataBytes"),
                        r.get("maxMetadataBytes"),
                        r.get("dataFiles"),
                        r.get("rows"),
                        r.get("firstP50Ms"),
                        r.get("firstP99Ms"),
                        r.get("lastP50Ms"),
                        r.get("lastP99Ms"),
                        r.get("p50Ms"),
                        r.get("p99Ms"),
                        r.get("scanMs"),
                        r.get("peakHeapBytes"),
                        r.get("peakLiveHeapBytes"),
                        r.get("liveHeapBytes"),
                        r.get("elapsedMs"),
                        r.get("maintenanceMs"),
                        r.get("rebuilds")));
                if (n == maxN) {
                    Files.copy(series, h.out.resolve("series-" + mode + ".csv"), StandardCopyOption.REPLACE_EXISTING);
                }
                System.out.printf(
                        Locale.ROOT,
                        "  %-10s N=%-5d metadata %s (live %s), data files %s, p50 first/last %s/%s ms, scan %s ms,"
                                + " heap: peak used %s, live %s, %d rebuilds%n",
                        mode,
                        n,
                        Units.bytes(r.get("metadataBytes")),
                        Units.bytes(r.get("liveMetadataBytes")),
                        r.get("dataFiles"),
                        r.get("firstP50Ms"),
                        r.get("lastP50Ms"),
                        r.get("scanMs"),
                        Units.bytes(r.get("peakHeapBytes")),
                        Units.bytes(r.get("liveHeapBytes")),
                        child.rebuildLines().size());
                h.deleteUnlessKept(dir, series);
            }
        }
        h.write("growth.csv", csv);
        GrowthChart.draw(h.out, h.sizes.quick);

        addFigures(h, results, ns);
    }

    /** The growth figures, each a RESULT value of one run against the same value of another. */
    private static void addFigures(Harness h, Map<String, Map<Integer, Map<String, String>>> results, int[] ns) {
        int maxN = ns[ns.length - 1];
        Map<Integer, Map<String, String>> g = results.get("guarded");
        Map<Integer, Map<String, String>> u = results.get("unguarded");
        Map<Integer, Map<String, String>> m = results.get("maintained");
        List<Figure> f = h.figures;
        for (int n : ns) {
            boolean last = n == maxN;
            f.add(same(
                    "metadata on disk, N=" + n,
                    "metadataBytes",
                    "B",
                    "guarded",
                    g.get(n),
                    "unguarded",
                    u.get(n),
                    last ? 0.01 : Double.NaN,
                    last ? "<= 0.01" : ""));
        }
        for (int n : ns) {
            f.add(same("metadata on disk, N=" + n, "metadataBytes", "B", "guarded", g.get(n), "maintained", m.get(n)));
        }
        f.add(same(
                "live metadata, N=" + maxN,
                "liveMetadataBytes",
                "B",
                "guarded",
                g.get(maxN),
                "unguarded",
                u.get(maxN)));
        f.add(same(
                "max metadata on disk during the run",
                "maxMetadataBytes",
                "B",
                "guarded N=" + maxN,
                g.get(maxN),
                "unguarded N=" + maxN,
                u.get(maxN)));
        f.add(same(
                "metadata on disk flat in N",
                "metadataBytes",
                "B",
                "guarded N=" + maxN,
                g.get(maxN),
                "guarded N=" + ns[0],
                g.get(ns[0]),
                1.5,
                "<= 1.5 (flat)"));
        f.add(same(
                "metadata on disk growth in N",
                "metadataBytes",
                "B",
                "unguarded N=" + maxN,
                u.get(maxN),
                "unguarded N=" + ns[0],
                u.get(ns[0])));
        for (String mode : MODES) {
            Map<String, String> r = results.get(mode).get(maxN);
            boolean guarded = mode.equals("guarded");
            f.add(Figure.ratio(
                    "1",
                    "commit p50, last/first 100, N=" + maxN,
                    mode + " last",
                    Harness.num(r, "lastP50Ms"),
                    mode + " first",
                    Harness.num(r, "firstP50Ms"),
                    "ms",
                    guarded ? 1.1 : Double.NaN,
                    guarded ? "<= 1.1" : ""));
            f.add(Figure.ratio(
                    "1",
                    "commit p99, last/first 100, N=" + maxN,
                    mode + " last",
                    Harness.num(r, "lastP99Ms"),
                    mode + " first",
                    Harness.num(r, "firstP99Ms"),
                    "ms",
                    Double.NaN,
                    ""));
        }
        f.add(same(
                "commit p50 last 100, N=" + maxN, "lastP50Ms", "ms", "guarded", g.get(maxN), "unguarded", u.get(maxN)));
        f.add(same(
                "commit p50 last 100, N=" + maxN,
                "lastP50Ms",
                "ms",
                "guarded",
                g.get(maxN),
                "maintained",
                m.get(maxN)));
        f.add(same("data files, N=" + maxN, "dataFiles", "", "guarded", g.get(maxN), "maintained", m.get(maxN)));
        for (int n : ns) {
            boolean last = n == maxN;
            f.add(same(
                    "full scan, N=" + n,
                    "scanMs",
                    "ms",
                    "guarded",
                    g.get(n),
                    "maintained",
                    m.get(n),
                    last ? 0.2 : Double.NaN,
                    last ? "<= 0.2" : ""));
        }
        f.add(same("full scan, N=" + maxN, "scanMs", "ms", "guarded", g.get(maxN), "unguarded", u.get(maxN)));
        String liveHeap = "peak live heap (full GC every " + HEAP_PROBE_EVERY + " commits), N=" + maxN;
        f.add(same(liveHeap, "liveHeapBytes", "B", "guarded", g.get(maxN), "unguarded", u.get(maxN)));
        f.add(same(liveHeap, "liveHeapBytes", "B", "guarded", g.get(maxN), "maintained", m.get(maxN)));
        f.add(same(
                "peak used heap (sampled), N=" + maxN,
                "peakHeapBytes",
                "B",
                "guarded",
                g.get(maxN),
                "unguarded",
                u.get(maxN)));
    }

    /** {@code key} of run {@code a} against {@code key} of run {@code b}, with no aim. */
    private static Figure same(
            String name,
            String key,
            String unit,
            String measured,
            Map<String, String> a,
            String against,
            Map<String, String> b) {
        return same(name, key, unit, measured, a, against, b, Double.NaN, "");
    }

    /** {@code key} of run {@code a} against {@code key} of run {@code b}; the aim as {@link Figure#ratio}. */
    private static Figure same(
            String name,
            String key,
            String unit,
            String measured,
            Map<String, String> a,
            String against,
            Map<String, String> b,
            double limit,
            String aim) {
        return Figure.ratio("1", name, measured, Harness.num(a, key), against, Harness.num(b, key), unit, limit, aim);
    }
}
