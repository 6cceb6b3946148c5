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
 * Part 11, rewrite: old versions rewritten onto the rebuilt files ({@code
 * floe.history.rewrite-after}, issue 28 part 3). A steady ingest (N single-file commits of 10 rows,
 * one every few tens of milliseconds, one thread) four times: floe keeping a window of history and
 * rewriting the versions older than rewrite-after onto each rebuild's files; floe keeping the same
 * window without rewriting; floe keeping none; and no floe, Iceberg's own {@code
 * expireSnapshots().expireOlderThan(now - window)} every 100 commits (the maintained mode). At the
 * end every version the table keeps is planned and a sample read back by id ({@link VersionsReadBack}): the bytes all
 * versions reference against the current version's, the versions of the window that read back
 * exactly, the full scan and commit p50: rewrite.csv.
 *
 * <p>Time is scaled down tenfold from the setting (a 10 min window, rewrite-after 2 min, a
 * rebuild every 200 snapshots): a 60 s window, 12 s, 200 snapshots, so that a run takes minutes.
 */
final class RewriteBench {
    static final String[] MODES = {"rewritten", "kept", "none", "maintained"};

    private static final List<String> CSV = List.of(
            "commits",
            "keptContentBytes",
            "currentContentBytes",
            "keptVersions",
            "rewrittenVersions",
            "versionsInWindow",
            "versionsReadable",
            "versionsSampled",
            "versionsSampledExact",
            "scanMs",
            "p50Ms",
            "p99Ms",
            "rows",
            "rebuilds",
            "elapsedMs");

    private RewriteBench() {}

    static void run(Harness h) throws Exception {
        Sizes s = h.sizes;
        int n = s.rewriteCommits;
        Map<String, Map<String, String>> results = new LinkedHashMap<>();
        List<String> csv = new ArrayList<>();
        csv.add("mode," + String.join(",", CSV));
        for (String mode : MODES) {
            String name = "rewrite-" + mode + "-" + n;
            Path dir = h.freshDir(name);
            List<String> jvm = new ArrayList<>();
            if (mode.equals("maintained")) {
                jvm.add("-Dbench.mode=maintained");
                jvm.add("-Dbench.expire-older-than-ms=" + s.rewriteWindowMs);
            } else {
                jvm.add(h.agent());
                jvm.add("-Dbench.mode=fast");
                jvm.add("-Dfloe.trigger.snapshots=" + s.rewriteTrigger);
                // the read-back at the end reads one version of every snapshot for longer than the demo's
                // grace: what a rebuild meanwhile retires stays until it is done (the figures count
                // references, not bytes on disk)
                jvm.add("-Dfloe.reclaim.grace=10m");
                jvm.add("-Dfloe.history.keep=" + (mode.equals("none") ? 0 : s.rewriteWindowMs) + "ms");
                jvm.add("-Dfloe.history.rewrite-after=" + (mode.equals("rewritten") ? s.rewriteAfterMs + "ms" : "off"));
            }
            jvm.add("-Dbench.pace-ms=" + s.rewritePaceMs);
            jvm.add("-Dbench.versions-window-ms=" + s.rewriteWindowMs);
            ChildJvm.Run child = h.ingest(name, jvm, dir, n, 10, 1);
            Map<String, String> r = child.requireResult(name);
            r.put("rebuilds", Integer.toString(child.rebuildLines().size()));
            results.put(mode, r);
            csv.add(Harness.csvRow(mode, r, CSV));
            System.out.printf(
                    Locale.ROOT,
                    "  rewrite %-10s N=%-5d versions %s (%s rewritten), %s of %s in the window read back (%s of %s"
                            + " sampled read exactly), data"
                            + " referenced %s (current %s), scan %s ms, p50 %s ms, %d rebuilds%n",
                    mode,
                    n,
                    r.get("keptVersions"),
                    r.get("rewrittenVersions"),
                    r.get("versionsReadable"),
                    r.get("versionsInWindow"),
                    r.get("versionsSampledExact"),
                    r.get("versionsSampled"),
                    Units.bytes(r.get("keptContentBytes")),
                    Units.bytes(r.get("currentContentBytes")),
                    r.get("scanMs"),
                    r.get("p50Ms"),
                    child.rebuildLines().size());
            h.deleteUnlessKept(dir, null);
        }
        h.write("rewrite.csv", csv);
        addFigures(h, results, s);
    }

    private static void addFigures(Harness h, Map<String, Map<String, String>> results, Sizes s) {
        String at = ", N=" + s.rewriteCommits + ", window " + Units.millis(s.rewriteWindowMs) + ", rewrite-after "
                + Units.millis(s.rewriteAfterMs);
        for (String mode : MODES) {
            Map<String, String> r = results.get(mode);
            h.figures.add(Figure.of(
                    "11",
                    "data bytes all kept versions reference / the current version's, " + mode + at,
                    "B",
                    Figure.side("kept", Harness.num(r, "keptContentBytes")),
                    Figure.side("current", Harness.num(r, "currentContentBytes")),
                    mode.equals("rewritten") ? Aim.atMost(1.3) : Aim.NONE));
        }
        for (String mode : List.of("rewritten", "kept", "maintained")) {
            Map<String, String> r = results.get(mode);
            double readable = Harness.num(r, "versionsReadable");
            double inWindow = Harness.num(r, "versionsInWindow");
            h.figures.add(Figure.of(
                    "11",
                    "versions readable by id with their rows / versions inside the window, " + mode + at,
                    "",
                    Figure.side("readable", readable),
                    Figure.side("window", inWindow),
                    Aim.judged("= 1", readable == inWindow && inWindow > 0)));
        }
        Map<String, String> rewritten = results.get("rewritten");
        Map<String, String> none = results.get("none");
        h.figures.add(Figure.of(
                "11",
                "full scan, rewritten / no history" + at,
                "ms",
                Figure.side("rewritten", Harness.num(rewritten, "scanMs")),
                Figure.side("none", Harness.num(none, "scanMs")),
                Aim.atMost(1.1)));
        h.figures.add(Figure.of(
                "11",
                "commit p50, rewritten / no history" + at,
                "ms",
                Figure.side("rewritten", Harness.num(rewritten, "p50Ms")),
                Figure.side("none", Harness.num(none, "p50Ms")),
                Aim.atMost(1.1)));
    }
}
