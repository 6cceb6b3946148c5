package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.samples.ChildJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part 9, rest: the REST catalog endpoint. In alternating pairs, the benchmarks' ingest host with
 * the agent (samples/floe.properties: it rebuilds every 200 snapshots) once serving the endpoint to
 * a reader in this JVM that loads the table with Iceberg's own {@code RESTCatalog} {@value
 * RestLoadLoop#LOADS_PER_SECOND} times a second ({@link RestLoadLoop}), once with the endpoint off:
 * the reader's loadTable latency while the host commits and floe rebuilds, and the host's commit
 * p50 of the one leg against the other. rest.csv, rest-loads.csv.
 */
final class RestBench {
    private RestBench() {}

    static void run(Harness h) throws Exception {
        List<String> csv = new ArrayList<>();
        csv.add("pair,order,offP50Ms,servingP50Ms,p50Ratio,offP99Ms,servingP99Ms,loads,loadP50Ms,loadP99Ms,"
                + "loadMaxMs,notFound,errors,rebuildsServing,rebuildsOff");
        List<Double> ratios = new ArrayList<>();
        List<Double> serving = new ArrayList<>();
        List<Double> off = new ArrayList<>();
        List<Double> loads = new ArrayList<>();
        long rebuildsDuringLoads = 0;
        long notFound = 0;
        long errors = 0;
        for (int pair = 1; pair <= h.sizes.overheadPairs; pair++) {
            boolean servingFirst = pair % 2 == 1;
            Map<String, String> a = null;
            Map<String, String> b = null;
            RestLoadLoop.Result reads = null;
            int rebuildsA = 0;
            int rebuildsB = 0;
            for (int leg = 0; leg < 2; leg++) {
                boolean withEndpoint = (leg == 0) == servingFirst;
                String name = "rest-" + pair + (withEndpoint ? "-serving" : "-off");
                Path dir = h.freshDir(name);
                List<String> jvm = new ArrayList<>(List.of(h.agent(), "-Dingest.verify=false"));
                if (withEndpoint) {
                    jvm.add("-Dfloe.rest.port=0");
                    RestLoadLoop loop = new RestLoadLoop("bench.events");
                    ChildJvm.Run child = h.ingest(name, jvm, dir, h.sizes.overheadCommits, 10, 1, loop::onHostLine);
                    reads = loop.stop();
                    a = child.requireResult(name);
                    rebuildsA = child.rebuildLines().size();
                } else {
                    ChildJvm.Run child = h.ingest(name, jvm, dir, h.sizes.overheadCommits, 10, 1);
                    b = child.requireResult(name);
                    rebuildsB = child.rebuildLines().size();
                }
                h.deleteUnlessKept(dir, null);
            }
            if (reads.loads().isEmpty()) {
                throw new IllegalStateException("pair " + pair + ": the reader loaded the table not once ("
                        + reads.notFound() + " not found, " + reads.errors() + " errors: " + reads.lastError() + ")");
            }
            double ratio = Harness.num(a, "p50Ms") / Harness.num(b, "p50Ms");
            ratios.add(ratio);
            serving.add(Harness.num(a, "p50Ms"));
            off.add(Harness.num(b, "p50Ms"));
            loads.addAll(reads.loads());
            rebuildsDuringLoads += rebuildsA;
            notFound += reads.notFound();
            errors += reads.errors();
            csv.add(String.format(
                    Locale.ROOT,
                    "%d,%s,%s,%s,%.4f,%s,%s,%d,%.3f,%.3f,%.3f,%d,%d,%d,%d",
                    pair,
                    servingFirst ? "serving first" : "off first",
                    b.get("p50Ms"),
                    a.get("p50Ms"),
                    ratio,
                    b.get("p99Ms"),
                    a.get("p99Ms"),
                    reads.loads().size(),
                    Harness.percentile(reads.loads(), 50),
                    Harness.percentile(reads.loads(), 99),
                    Harness.percentile(reads.loads(), 100),
                    reads.notFound(),
                    reads.errors(),
                    rebuildsA,
                    rebuildsB));
            System.out.printf(
                    Locale.ROOT,
                    "  pair %d: commit p50 %s ms off, %s ms serving: %.3fx; %d loads, p50 %.2f ms; %d errors%s%n",
                    pair,
                    b.get("p50Ms"),
                    a.get("p50Ms"),
                    ratio,
                    reads.loads().size(),
                    Harness.percentile(reads.loads(), 50),
                    reads.errors(),
                    reads.lastError() == null ? "" : " (last: " + reads.lastError() + ")");
        }
        h.write("rest.csv", csv);
        List<String> loadCsv = new ArrayList<>(List.of("loadMs"));
        loads.forEach(ms -> loadCsv.add(String.format(Locale.ROOT, "%.3f", ms)));
        h.write("rest-loads.csv", loadCsv);

        double median = Harness.percentile(ratios, 50);
        h.figures.add(Figure.of(
                        "9",
                        String.format(
                                Locale.ROOT,
                                "host commit p50, endpoint serving a reader (%d loadTable/s) / endpoint off (%d A/B"
                                        + " pairs)",
                                RestLoadLoop.LOADS_PER_SECOND,
                                ratios.size()),
                        "ms",
                        Figure.side("serving", Harness.percentile(serving, 50)),
                        Figure.side("off", Harness.percentile(off, 50)),
                        Aim.judged("<= 1.05", median <= 1.05))
                .withNote(String.format(
                        Locale.ROOT,
                        "median of pair ratios; pairs %.3f..%.3f",
                        Harness.percentile(ratios, 0),
                        Harness.percentile(ratios, 100)))
                .withRatio(median));
        h.figures.add(Figure.of(
                        "9",
                        String.format(
                                Locale.ROOT,
                                "loadTable over REST while the host commits, p50 (p99 beside): %d loads, %d rebuilds"
                                        + " during them, %d not found after the first, %d errors",
                                loads.size(),
                                rebuildsDuringLoads,
                                notFound,
                                errors),
                        "ms",
                        Figure.side("p50", Harness.percentile(loads, 50)),
                        Figure.side("p99", Harness.percentile(loads, 99)))
                .withRatio(Double.NaN));
    }
}
