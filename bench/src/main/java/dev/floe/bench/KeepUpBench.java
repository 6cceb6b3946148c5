package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.samples.ChildJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Part 13, keep-up: whether rebuilds keep a fast ingest's table near its trigger as it grows, tier
 * promotions included. The hidden-host-like ingest (the sample's schema) commits {@code
 * keepUpRows} rows per commit from one thread, as fast as it can, {@code keepUpCommits} times, with
 * {@code floe.trigger.snapshots} at {@code keepUpTrigger} and floe's default file sizes; once with
 * promotions copying row groups (the default) and once re-encoding every row (what floe did before).
 *
 * <ul>
 *   <li>the most snapshots seen above the newest rebuilt one after any commit, over the trigger
 *       (what a reader and the next rebuild face while a promotion runs);
 *   <li>write amplification: host and floe data bytes per host data byte (Iceberg's own expiry
 *       writes only the host's: 1 by construction);
 *   <li>CPU seconds of floe's threads per GB of data the host wrote, copy against re-encode;
 *   <li>content exact: the ingest reads every row back (count and distinct ids).
 * </ul>
 * keepup.csv has a line per run; each rebuild's line is in the run's log.
 */
final class KeepUpBench {
    private static final Pattern WRITTEN = Pattern.compile("written (\\d+) bytes");
    private static final Pattern STREAM = Pattern.compile("(?<![\\w-])stream=(\\d+)ms");

    private KeepUpBench() {}

    static void run(Harness h) throws Exception {
        int trigger = h.sizes.keepUpTrigger;
        int rows = h.sizes.keepUpRows;
        List<String> csv = new ArrayList<>();
        csv.add("commits,mode,rebuilds,maxPendingSnapshots,trigger,hostBytes,floeBytes,amplification,"
                + "floeCpuMs,cpuSecondsPerGB,longestStreamMs,p50Ms,rows,distinctIds");
        for (int commits : h.sizes.keepUpCommits) {
            double[] cpuPerGb = new double[2];
            for (boolean copy : new boolean[] {true, false}) {
                String mode = copy ? "copied" : "re-encoded";
                String name = "keepup-" + commits + "-" + mode;
                Path dir = h.freshDir(name);
                ChildJvm.Run run = h.ingest(
                        name,
                        List.of(
                                h.agent(),
                                "-Dfloe.trigger.snapshots=" + trigger,
                                "-Dfloe.trigger.data-files=100000",
                                "-Dfloe.trigger.metadata-bytes=1GiB",
                                "-Dfloe.trigger.min-interval=0s",
                                "-Dfloe.rebuild.copy-row-groups=" + copy,
                                "-Dbench.keep-up=true"),
                        dir,
                        commits,
                        rows,
                        1);
                Map<String, String> r = run.requireResult(name);
                long expected = (long) commits * rows;
                if (Long.parseLong(r.get("rows")) != expected || Long.parseLong(r.get("distinctIds")) != expected) {
                    throw new IllegalStateException(name + " read back " + r.get("rows") + " rows, "
                            + r.get("distinctIds") + " distinct ids; " + expected + " were committed");
                }
                long floe = 0;
                long longestStream = 0;
                for (String line : run.rebuildLines()) {
                    floe += sum(WRITTEN, line);
                    longestStream = Math.max(longestStream, sum(STREAM, line));
                }
                double host = Harness.num(r, "hostDataBytes");
                double wa = (host + floe) / host;
                int pending = (int) Harness.num(r, "maxPendingSnapshots");
                double cpuMs = Harness.num(r, "floeCpuMs");
                double perGb = cpuMs / 1000 / (host / 1e9);
                cpuPerGb[copy ? 0 : 1] = perGb;
                csv.add(String.format(
                        Locale.ROOT,
                        "%d,%s,%d,%d,%d,%.0f,%d,%.3f,%.0f,%.1f,%d,%s,%s,%s",
                        commits,
                        mode,
                        run.rebuildLines().size(),
                        pending,
                        trigger,
                        host,
                        floe,
                        wa,
                        cpuMs,
                        perGb,
                        longestStream,
                        r.get("p50Ms"),
                        r.get("rows"),
                        r.get("distinctIds")));
                System.out.printf(
                        Locale.ROOT,
                        "  %s: %d rebuilds, at most %d snapshots above a rebuilt one (trigger %d), %.2f bytes"
                                + " written per byte ingested, %.1f CPU s per GB, longest stream %d ms%n",
                        name,
                        run.rebuildLines().size(),
                        pending,
                        trigger,
                        wa,
                        perGb,
                        longestStream);
                if (copy) {
                    String label = commits + " commits of " + rows + " rows";
                    h.figures.add(Figure.of(
                            "13",
                            "snapshots above the last rebuild at most, " + label,
                            "x",
                            Figure.side("most seen", pending),
                            Figure.side("trigger", trigger),
                            Aim.atMost(2)));
                    h.figures.add(Figure.of(
                            "13",
                            "write amplification, " + label,
                            "x",
                            Figure.side("host + floe data bytes", wa),
                            Figure.side("host data bytes (Iceberg's expiry)", 1),
                            Aim.atMost(3)));
                }
                h.deleteUnlessKept(dir, null);
            }
            h.figures.add(Figure.of(
                    "13",
                    "rebuild CPU per GB ingested, " + commits + " commits",
                    "x",
                    Figure.side("row groups copied (CPU s/GB)", cpuPerGb[0]),
                    Figure.side("re-encoded (CPU s/GB)", cpuPerGb[1]),
                    Aim.NONE));
        }
        h.write("keepup.csv", csv);
    }

    private static long sum(Pattern pattern, String line) {
        Matcher m = pattern.matcher(line);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
