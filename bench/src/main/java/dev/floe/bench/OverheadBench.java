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
 * Part 5, overhead: commit p50 with the agent attached and its triggers off, against no agent, in
 * alternating pairs (each pair in the other order than the one before): overhead.csv.
 */
final class OverheadBench {
    private OverheadBench() {}

    static void run(Harness h) throws Exception {
        List<String> csv = new ArrayList<>();
        csv.add(
                "pair,order,noAgentP50Ms,agentP50Ms,p50Ratio,noAgentP99Ms,agentP99Ms,p99Ratio,noAgentElapsedMs,agentElapsedMs");
        List<Double> ratios = new ArrayList<>();
        List<Double> p99Ratios = new ArrayList<>();
        List<Double> plain = new ArrayList<>();
        List<Double> agent = new ArrayList<>();
        for (int pair = 1; pair <= h.sizes.overheadPairs; pair++) {
            boolean agentFirst = pair % 2 == 0;
            Map<String, String> a = null;
            Map<String, String> b = null;
            for (int leg = 0; leg < 2; leg++) {
                boolean withAgent = (leg == 0) == agentFirst;
                String name = "overhead-" + pair + (withAgent ? "-agent" : "-plain");
                Path dir = h.freshDir(name);
                List<String> jvm = new ArrayList<>();
                if (withAgent) {
                    jvm.add(h.agent());
                    jvm.add("-Dfloe.trigger.snapshots=1000000");
                    jvm.add("-Dfloe.trigger.data-files=1000000");
                    jvm.add("-Dfloe.trigger.metadata-bytes=1024GiB");
                }
                jvm.add("-Dingest.verify=false");
                ChildJvm.Run child = h.ingest(name, jvm, dir, h.sizes.overheadCommits, 10, 1);
                if (withAgent) {
                    a = child.requireResult(name);
                    if (!child.rebuildLines().isEmpty()) {
                        throw new IllegalStateException("a rebuild ran with its triggers off: " + child.log());
                    }
                } else {
                    b = child.requireResult(name);
                }
                h.deleteUnlessKept(dir, null);
            }
            double ratio = Harness.num(a, "p50Ms") / Harness.num(b, "p50Ms");
            double p99Ratio = Harness.num(a, "p99Ms") / Harness.num(b, "p99Ms");
            ratios.add(ratio);
            p99Ratios.add(p99Ratio);
            agent.add(Harness.num(a, "p50Ms"));
            plain.add(Harness.num(b, "p50Ms"));
            csv.add(String.format(
                    Locale.ROOT,
                    "%d,%s,%s,%s,%.4f,%s,%s,%.4f,%s,%s",
                    pair,
                    agentFirst ? "agent first" : "no agent first",
                    b.get("p50Ms"),
                    a.get("p50Ms"),
                    ratio,
                    b.get("p99Ms"),
                    a.get("p99Ms"),
                    p99Ratio,
                    b.get("elapsedMs"),
                    a.get("elapsedMs")));
            System.out.printf(
                    Locale.ROOT,
                    "  pair %d (%s): p50 %s ms without, %s ms with the agent: %.3fx%n",
                    pair,
                    agentFirst ? "agent first" : "no agent first",
                    b.get("p50Ms"),
                    a.get("p50Ms"),
                    ratio);
        }
        h.write("overhead.csv", csv);
        double median = Harness.percentile(ratios, 50);
        double lowest = Harness.percentile(ratios, 0);
        double highest = Harness.percentile(ratios, 100);
        String pairs = String.format(Locale.ROOT, "median of pair ratios; pairs %.3f..%.3f", lowest, highest);
        h.figures.add(Figure.of(
                        "5",
                        String.format(
                                Locale.ROOT,
                                "commit p50, agent attached with triggers off (%d A/B pairs)",
                                ratios.size()),
                        "ms",
                        Figure.side("agent", Harness.percentile(agent, 50)),
                        Figure.side("no agent", Harness.percentile(plain, 50)),
                        Aim.judged("<= 1.03", median <= 1.03))
                .withNote(pairs)
                .withRatio(median));
        Side agentP99 = Figure.side("agent", Double.NaN);
        Side plainP99 = Figure.side("no agent", Double.NaN);
        h.figures.add(Figure.of("5", "commit p99, agent attached with triggers off", "", agentP99, plainP99)
                .withNote("median of pair ratios")
                .withRatio(Harness.percentile(p99Ratios, 50)));
    }
}
