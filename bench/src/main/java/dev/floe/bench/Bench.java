package dev.floe.bench;

import dev.floe.samples.Command;
import dev.floe.samples.Ingest;
import dev.floe.samples.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The benchmarks of issue 5, in one command: every workload runs as child JVMs (the benchmarks'
 * {@link BenchIngest} and {@link RebuildHost}), with and without the floe agent, and every figure
 * is printed as a ratio against its comparison measured in the same run. floe is observed from the
 * outside only: its log lines, its MBeans (read inside the child host) and files on disk. Each part
 * is a class of its own ({@link GrowthBench}, {@link ThroughputBench}, {@link LowHeapBench},
 * {@link StallBench}, {@link OverheadBench}, {@link JdbcGrowthBench}, {@link IncrementalBench}, {@link
 * UpsertBench}, {@link RestBench}, {@link HistoryBench}, {@link RewriteBench}, {@link PromotionBench}, {@link KeepUpBench}); this one runs them and writes the summary.
 *
 * <pre>
 * java -cp bench/target/floe-bench.jar dev.floe.bench.Bench [--quick] [--only parts]
 * </pre>
 */
public final class Bench {
    static final String USAGE = String.join(
            "\n",
            "usage: java -cp bench/target/floe-bench.jar dev.floe.bench.Bench [options]",
            "",
            "Runs floe's benchmarks as child JVMs and writes CSVs, docs/bench/chart.svg and",
            "docs/bench/summary.md. Parts (all by default, in this order):",
            "  growth      the sample ingest, N = 500, 1000, 2000 single-file commits of 10 rows, in three",
            "              modes: unguarded newFastAppend(); Iceberg's own maintenance (BenchIngest",
            "              -Dbench.mode=maintained); floe-guarded newFastAppend() (agent, samples/floe.properties).",
            "              Metadata on disk, data files, commit p50/p99 over the first and last 100",
            "              commits, full-scan time, peak heap. growth.csv, series-<mode>.csv (N = 2000)",
            "  throughput  rebuild rows/s and MB/s against plain parquet-java reading and writing the same",
            "              rows in the same JVM (RebuildHost throughput, 2M rows in 40 files): throughput.csv",
            "  lowheap     a rebuild at -Xmx128m of a table over 5x that, incompressible rows: lowheap.csv",
            "  stall       an appender's worst commit latency while a rebuild of a 1M, 5M, 20M-row table",
            "              runs (rebuilt once before: its files settled), minus its normal (p50) latency",
            "              before the rebuild: stall.csv",
            "  overhead    commit p50 with the agent attached and its triggers off, against no agent, in",
            "              5 alternating pairs of 500 commits: overhead.csv",
            "  jdbc        the sample ingest on Iceberg's JdbcCatalog over a SQLite file (clients=1,",
            "              jdbc.schema-version=V1), N = 2000 single-file commits of 10 rows, unguarded and",
            "              guarded (the agent with floe.tables=bench.events, rebuilt in place): metadata on",
            "              disk, snapshots, data files, rows read back, commit p50/p99: jdbc-growth.csv",
            "  incremental write amplification over a long ingest (6,000 commits of 1,000 rows, a rebuild",
            "              every 80 snapshots, 8 MiB target files): incremental, partitioned by hour, and",
            "              the whole table at every rebuild; a full scan of the result against the same table",
            "              rewritten whole; one rebuild of 100 new commits on a settled 20 M against a 1 M-row",
            "              table: incremental-wa.csv, incremental-scan.csv, incremental-rebuild.csv",
            "  upsert      the sample upsert host (dev.floe.samples.Upsert: every commit one row delta of 20 new",
            "              rows and an equality delete of their keys' earlier versions, 2,000 keys), N = 2000",
            "              commits unguarded and guarded (a rebuild every 100 snapshots): full scan guarded /",
            "              unguarded in a reader JVM of its own (ScanHost, median of up to 5 scans, as many as",
            "              fit in 2 minutes, at least one), rebuild attempts per successful rebuild, append",
            "              stall during a rebuild that rebases deltas: upsert.csv, upsert-rebuilds.csv",
            "  rest        the REST catalog endpoint, in 5 alternating pairs of 500 commits of the ingest",
            "              host with the agent: once serving a reader in this JVM (Iceberg's RESTCatalog,",
            "              20 loadTable/s), once with the endpoint off: loadTable latency while the host",
            "              commits and floe rebuilds, host commit p50 serving / off: rest.csv, rest-loads.csv",
            "  history     the growth part's guarded ingest, N = 2000, with history kept as by default",
            "              (floe.history.keep=1h, keep-snapshots=2000), with keep-snapshots=N/4, and with none",
            "              (floe.history.keep=0s): commit p50, the metadata file's size, snapshots kept,",
            "              metadata on disk, an incremental read from the oldest kept snapshot: history.csv",
            "  rewrite     a steady ingest (N = 2000 commits of 10 rows, paced) with a 60 s window of history:",
            "              old versions rewritten onto the rebuilt files after 12 s, kept as they were, none",
            "              kept, and Iceberg's own expiry of what is older than the window (the issue's 10",
            "              min / 2 min scaled tenfold): bytes all versions reference / the current one's,",
            "              versions of the window readable by id, full scan, commit p50: rewrite.csv",
            "  promotion   a table of 8 M rows settled by the CLI into files of 16 MiB (copy off), then rebuilt",
            "              whole into one file by the agent in a host it warmed up on a table a quarter the",
            "              size: row groups copied, and re-encoded (floe.rebuild.copy-row-groups=false), each",
            "              against a plain copy of the same files on this disk: MB/s of the stream phase:",
            "              promotion.csv",
            "  keepup      the sample ingest, 300 and 3,000 commits of 10,000 rows from one thread, trigger 15",
            "              snapshots, floe's default file sizes; row groups copied, and re-encoded: the most",
            "              snapshots above the last rebuild / the trigger, write amplification, CPU seconds of",
            "              floe's threads per GB ingested, rows read back: keepup.csv",
            "",
            "options:",
            "  --quick       every part at its smallest size, a smoke test of the command that measures",
            "                nothing (about 3 minutes on 2 cores; CI runs it: BenchSmokeTest); results go",
            "                to bench/target/bench-quick unless --out is given, and say 'quick'",
            "  --only LIST   comma-separated parts to run, e.g. --only growth,stall",
            "  --out DIR     where CSVs, the chart and the summary go (default <repo>/docs/bench)",
            "  --work DIR    where the runs' catalogs, tables and logs go (default",
            "                <repo>/bench/target/bench-work); each part's tables are deleted after it",
            "  --keep        keep the tables",
            "  --repo DIR    the floe repository (default: found from this jar's location)",
            "  --chart-only  only redraw <out>/chart.svg from <out>/series-*.csv",
            "  --help        this text",
            "The agent jar (agent/target/floe-agent.jar) and this jar with its lib/ are copied to the work",
            "directory first, so a rebuild of the repository during the run does not change what runs.",
            "A part that fails is reported with its cause on the console and in the summary, the other parts",
            "still run and their figures are written. Exit code 0 when every part succeeded (whether or not",
            "an aim was met), 1 when one failed, 2 on bad arguments.");

    /** One benchmark part. */
    interface Part {
        void run(Harness harness) throws Exception;
    }

    static final Map<String, Part> PARTS = parts();

    private static Map<String, Part> parts() {
        Map<String, Part> parts = new LinkedHashMap<>();
        parts.put("growth", GrowthBench::run);
        parts.put("throughput", ThroughputBench::run);
        parts.put("lowheap", LowHeapBench::run);
        parts.put("stall", StallBench::run);
        parts.put("overhead", OverheadBench::run);
        parts.put("jdbc", JdbcGrowthBench::run);
        parts.put("incremental", IncrementalBench::run);
        parts.put("upsert", UpsertBench::run);
        parts.put("rest", RestBench::run);
        parts.put("history", HistoryBench::run);
        parts.put("rewrite", RewriteBench::run);
        parts.put("promotion", PromotionBench::run);
        parts.put("keepup", KeepUpBench::run);
        return parts;
    }

    private final Harness h;
    private final Map<String, Part> parts;
    private final List<String> loads = new ArrayList<>();

    /** A run of {@code parts} (by name) with {@code harness}. */
    Bench(Harness harness, Map<String, Part> parts) {
        this.h = harness;
        this.parts = parts;
    }

    public static void main(String[] args) {
        Command.exit("bench", args, Bench::run);
    }

    private static int run(String[] args) throws Exception {
        Command.Line line = Command.parse(
                args, Set.of("--quick", "--keep", "--chart-only"), Set.of("--only", "--out", "--work", "--repo"));
        if (line.help()) {
            System.out.println(USAGE);
            return 0;
        }
        if (!line.words().isEmpty()) {
            throw new IllegalArgumentException(
                    "unknown argument " + line.words().get(0));
        }
        boolean quick = line.has("--quick");
        Set<String> only = new LinkedHashSet<>(PARTS.keySet());
        if (line.value("--only") != null) {
            only.clear();
            for (String part : line.value("--only").split(",")) {
                if (!PARTS.containsKey(part.trim())) {
                    throw new IllegalArgumentException(
                            "unknown part '" + part + "'; parts: " + String.join(",", PARTS.keySet()));
                }
                only.add(part.trim());
            }
        }
        Path repo = line.path("--repo");
        Path out = line.path("--out");
        Path work = line.path("--work");
        repo = (repo != null ? repo : Repo.locate(Bench.class)).toAbsolutePath().normalize();
        if (out == null) {
            out = quick ? repo.resolve("bench/target/bench-quick") : repo.resolve("docs/bench");
        }
        if (work == null) {
            work = repo.resolve("bench/target/bench-work");
        }
        out = out.toAbsolutePath().normalize();
        Harness harness =
                new Harness(repo, out, work.toAbsolutePath().normalize(), new Sizes(quick), line.has("--keep"));
        if (!line.has("--chart-only") && !Files.isRegularFile(harness.floeProperties)) {
            throw new IllegalArgumentException(
                    harness.floeProperties + " does not exist: is " + repo + " the floe repository?");
        }
        // the arguments are read: whatever goes wrong from here on is the run's, never a usage error
        try {
            if (line.has("--chart-only")) {
                GrowthChart.draw(out, quick);
                return 0;
            }
            return new Bench(harness, PARTS).runParts(only);
        } catch (IllegalArgumentException e) {
            System.out.println("bench: error: " + Ingest.describe(e));
            return 1;
        }
    }

    /** Runs {@code names} in order, writes the summary; 0 if every part succeeded, 1 if one failed. */
    int runParts(Set<String> names) throws Exception {
        Path builtAgent = h.repo.resolve("agent/target/floe-agent.jar");
        if (!Files.isRegularFile(builtAgent)) {
            System.out.println("bench: the agent jar " + builtAgent + " does not exist: build it first"
                    + " (mvn -B -ntp -q -DskipTests package)");
            return 2;
        }
        Files.createDirectories(h.out);
        h.snapshotJars(builtAgent);
        long start = System.nanoTime();
        System.out.printf(
                Locale.ROOT,
                "bench: %s run of %s on %s; results in %s, runs under %s%n",
                h.sizes.quick ? "a QUICK (smoke-test)" : "the full",
                String.join(", ", names),
                Harness.machine(),
                h.out,
                h.work);
        if (Harness.loadAverage() > Runtime.getRuntime().availableProcessors()) {
            System.out.printf(
                    Locale.ROOT,
                    "bench: warning: the system load average is %.1f on %d cores: other work competes with the"
                            + " runs, and timings will be noisy%n",
                    Harness.loadAverage(),
                    Runtime.getRuntime().availableProcessors());
        }
        for (String part : names) {
            long t0 = System.nanoTime();
            System.out.println();
            loads.add(String.format(Locale.ROOT, "%s %.1f", part, Harness.loadAverage()));
            System.out.printf(Locale.ROOT, "== %s (system load average %.1f)%n", part, Harness.loadAverage());
            try {
                parts.get(part).run(h);
            } catch (Exception | LinkageError e) {
                failed(part, e);
            }
            System.out.printf(Locale.ROOT, "== %s took %.0f s%n", part, (System.nanoTime() - t0) / 1e9);
        }
        System.out.println();
        writeSummary(names, (System.nanoTime() - start) / 1e9);
        System.out.print(Figure.table(h.figures));
        for (String failure : h.failures) {
            System.out.println("bench: FAILED " + failure);
        }
        System.out.printf(
                Locale.ROOT,
                "bench: done in %.1f min; summary in %s%n",
                (System.nanoTime() - start) / 60e9,
                h.out.resolve("summary.md"));
        return h.failures.isEmpty() ? 0 : 1;
    }

    /**
     * A part that threw: its cause on the console and in the summary, its stack trace in the work
     * directory's logs; the parts after it still run.
     */
    private void failed(String part, Throwable e) {
        Path trace = h.work.resolve("logs").resolve(part + "-failure.txt");
        java.io.StringWriter text = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(text));
        try {
            Files.createDirectories(trace.getParent());
            Files.writeString(trace, text.toString());
        } catch (IOException | RuntimeException io) {
            trace = null;
        }
        String cause = Ingest.describe(e) + (trace == null ? "" : " (stack trace in " + trace + ")");
        h.failures.add(part + ": " + cause);
        System.out.println("bench: " + part + " failed: " + cause + "; the other parts go on");
    }

    private void writeSummary(Set<String> parts, double seconds) throws IOException {
        List<String> csv = new ArrayList<>();
        csv.add("part,figure,measured,value,comparison,comparisonValue,unit,ratio,aim,met");
        for (Figure f : h.figures) {
            csv.add(f.csv());
        }
        h.write("summary.csv", csv);
        StringBuilder md = new StringBuilder();
        md.append(String.format(
                Locale.ROOT,
                "%s run of %s, %s, on %s; %.0f minutes.%n%n",
                h.sizes.quick ? "A QUICK (smoke-test sizes, not the benchmark)" : "The full",
                String.join(", ", parts),
                LocalDate.now(),
                Harness.machine(),
                seconds / 60));
        md.append(String.format(
                Locale.ROOT,
                "System load average (1 min) as each part began: %s; at the end %.1f.%n%n",
                String.join(", ", loads),
                Harness.loadAverage()));
        md.append(Figure.markdown(h.figures));
        if (!h.notes.isEmpty()) {
            md.append("\nNotes:\n\n");
            h.notes.forEach(note -> md.append("- ").append(note).append('\n'));
        }
        if (!h.failures.isEmpty()) {
            md.append("\nFailed (their figures are missing above, or some of them):\n\n");
            h.failures.forEach(failure -> md.append("- ").append(failure).append('\n'));
        }
        Files.writeString(h.out.resolve("summary.md"), md.toString());
    }
}
