package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.samples.ChildJvm;
import dev.floe.samples.Units;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part 10, history: what keeping history ({@code floe.history.keep}, issue 28) costs. The growth
 * part's guarded ingest (N single-file commits of 10 rows, samples/floe.properties) three times:
 * history kept as by default ({@code 1h}, at most {@code floe.history.keep-snapshots=2000}), kept
 * with a cap of N/4 snapshots, and none ({@code floe.history.keep=0s}, floe before it kept
 * history). Commit p50, the current metadata file's size, the snapshots kept, metadata on disk,
 * and at the end an incremental read from the oldest kept snapshot ({@link HistoryReadBack}):
 * history.csv.
 */
final class HistoryBench {
    static final String[] MODES = {"kept", "capped", "none"};

    private static final List<String> CSV = List.of(
            "commits",
            "snapshots",
            "historySnapshots",
            "sinceRebuild",
            "oldestAgeMs",
            "metadataJsonBytes",
            "liveMetadataBytes",
            "metadataBytes",
            "p50Ms",
            "p99Ms",
            "firstP50Ms",
            "lastP50Ms",
            "incrementalRows",
            "incrementalExpected",
            "incrementalDistinct",
            "rows",
            "rebuilds",
            "elapsedMs");

    private HistoryBench() {}

    static void run(Harness h) throws Exception {
        int n = h.sizes.historyCommits;
        int cap = Math.max(10, n / 4);
        Map<String, Map<String, String>> results = new LinkedHashMap<>();
        List<String> csv = new ArrayList<>();
        csv.add("mode," + String.join(",", CSV));
        for (String mode : MODES) {
            String name = "history-" + mode + "-" + n;
            Path dir = h.freshDir(name);
            List<String> jvm = new ArrayList<>();
            jvm.add(h.agent());
            if (h.sizes.growthTrigger > 0) {
                jvm.add("-Dfloe.trigger.snapshots=" + h.sizes.growthTrigger);
            }
            if (mode.equals("capped")) {
                jvm.add("-Dfloe.history.keep-snapshots=" + cap);
            } else if (mode.equals("none")) {
                jvm.add("-Dfloe.history.keep=0s");
            }
            jvm.add("-Dbench.mode=fast");
            jvm.add("-Dbench.history-check=true");
            ChildJvm.Run child = h.ingest(name, jvm, dir, n, 10, 1);
            Map<String, String> r = child.requireResult(name);
            r.put("rebuilds", Integer.toString(child.rebuildLines().size()));
            results.put(mode, r);
            csv.add(Harness.csvRow(mode, r, CSV));
            System.out.printf(
                    Locale.ROOT,
                    "  history %-6s N=%-5d %s snapshots on main, metadata file %s, metadata on disk %s (live %s),"
                            + " p50 %s ms (last 100 %s ms), incremental read %s of %s rows, %d rebuilds%n",
                    mode,
                    n,
                    r.get("historySnapshots"),
                    Units.bytes(r.get("metadataJsonBytes")),
                    Units.bytes(r.get("metadataBytes")),
                    Units.bytes(r.get("liveMetadataBytes")),
                    r.get("p50Ms"),
                    r.get("lastP50Ms"),
                    r.get("incrementalRows"),
                    r.get("incrementalExpected"),
                    child.rebuildLines().size());
            h.deleteUnlessKept(dir, null);
        }
        h.write("history.csv", csv);
        addFigures(h, results, n, cap);
    }

    private static void addFigures(Harness h, Map<String, Map<String, String>> results, int n, int cap) {
        Map<String, String> kept = results.get("kept");
        Map<String, String> capped = results.get("capped");
        Map<String, String> none = results.get("none");
        String at = ", N=" + n;
        add(h, "commit p50, history kept / none" + at, "p50Ms", "ms", "kept", kept, "none", none, Aim.atMost(1.1));
        add(
                h,
                "commit p50 last 100, history kept / none" + at,
                "lastP50Ms",
                "ms",
                "kept",
                kept,
                "none",
                none,
                Aim.NONE);
        add(h, "commit p99, history kept / none" + at, "p99Ms", "ms", "kept", kept, "none", none, Aim.NONE);
        add(
                h,
                "snapshots on main, history kept / none" + at,
                "historySnapshots",
                "",
                "kept",
                kept,
                "none",
                none,
                Aim.NONE);
        add(
                h,
                "metadata file, history kept / none" + at,
                "metadataJsonBytes",
                "B",
                "kept",
                kept,
                "none",
                none,
                Aim.NONE);
        add(
                h,
                "metadata on disk, history kept / none" + at,
                "metadataBytes",
                "B",
                "kept",
                kept,
                "none",
                none,
                Aim.NONE);
        // what the cap implies: at most the cap below the newest rebuilt snapshot, that one, and the
        // host's commits since it; in bytes, the file without history plus the kept run's bytes per
        // snapshot for each snapshot beyond the no-history run's
        double bound = cap + 1 + Harness.num(capped, "sinceRebuild");
        double perSnapshot = (Harness.num(kept, "metadataJsonBytes") - Harness.num(none, "metadataJsonBytes"))
                / Math.max(1, Harness.num(kept, "historySnapshots") - Harness.num(none, "historySnapshots"));
        double implied = Harness.num(none, "metadataJsonBytes")
                + perSnapshot * Math.max(0, bound - Harness.num(none, "historySnapshots"));
        h.figures.add(Figure.of(
                "10",
                "metadata file, keep-snapshots=" + cap + " / what that cap implies" + at,
                "B",
                Figure.side("capped", Harness.num(capped, "metadataJsonBytes")),
                Figure.side("implied", implied),
                Aim.atMost(1.05)));
        h.figures.add(Figure.of(
                "10",
                "snapshots on main, keep-snapshots=" + cap + " / the cap, the rebuilt one and the commits since" + at,
                "",
                Figure.side("capped", Harness.num(capped, "historySnapshots")),
                Figure.side("bound", bound),
                Aim.atMost(1.0)));
        for (String mode : MODES) {
            Map<String, String> r = results.get(mode);
            boolean once = Harness.num(r, "incrementalRows") == Harness.num(r, "incrementalExpected")
                    && Harness.num(r, "incrementalDistinct") == Harness.num(r, "incrementalRows")
                    && Harness.num(r, "rows") == n * 10.0;
            h.figures.add(Figure.of(
                            "10",
                            "rows an incremental reader gets from the oldest kept snapshot / the appends kept, " + mode
                                    + at,
                            "",
                            Figure.side("read", Harness.num(r, "incrementalRows")),
                            Figure.side("appended", Harness.num(r, "incrementalExpected")),
                            Aim.judged("= 1, every row once", once))
                    .withNote("oldest kept snapshot " + Units.millis(Harness.num(r, "oldestAgeMs")) + " old"));
        }
    }

    private static void add(
            Harness h,
            String name,
            String key,
            String unit,
            String label,
            Map<String, String> measured,
            String againstLabel,
            Map<String, String> against,
            Aim aim) {
        h.figures.add(Figure.of(
                "10",
                name,
                unit,
                Figure.side(label, Harness.num(measured, key)),
                Figure.side(againstLabel, Harness.num(against, key)),
                aim));
    }
}
