package dev.floe.samples;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The benchmarks of issue 5, in one command: every workload runs as child JVMs (the sample {@link
 * Ingest} and the {@link RebuildBench} host), with and without the floe agent, and every figure is
 * printed as a ratio against its comparison measured in the same run. floe is observed from the
 * outside only: its log lines, its MBeans (read inside the child host) and files on disk.
 *
 * <pre>
 * java -cp samples/target/floe-samples.jar dev.floe.samples.Bench [--quick] [--only parts]
 * </pre>
 */
public final class Bench {
  static final String USAGE =
      String.join(
          "\n",
          "usage: java -cp samples/target/floe-samples.jar dev.floe.samples.Bench [options]",
          "",
          "Runs floe's benchmarks as child JVMs and writes CSVs, docs/bench/chart.svg and",
          "docs/bench/summary.md. Parts (all by default, in this order):",
          "  growth      the sample ingest, N = 500, 1000, 2000 single-file commits of 10 rows, in three",
          "              modes: unguarded newFastAppend(); Iceberg's own maintenance (-Dingest.mode=",
          "              maintained); floe-guarded newFastAppend() (agent, samples/floe.properties).",
          "              Metadata on disk, data files, commit p50/p99 over the first and last 100",
          "              commits, full-scan time, peak heap. growth.csv, series-<mode>.csv (N = 2000)",
          "  throughput  rebuild rows/s and MB/s against plain parquet-java reading and writing the same",
          "              rows in the same JVM (RebuildBench throughput, 2M rows in 40 files): throughput.csv",
          "  lowheap     a rebuild at -Xmx128m of a table over 5x that, incompressible rows: lowheap.csv",
          "  stall       an appender's worst commit latency while a rebuild of a 1M, 5M, 20M-row table",
          "              runs, minus its normal (p50) latency before the rebuild: stall.csv",
          "  overhead    commit p50 with the agent attached and its triggers off, against no agent, in",
          "              5 alternating pairs of 500 commits: overhead.csv",
          "",
          "options:",
          "  --quick       small sizes, to check that everything runs (a few minutes); results go to",
          "                samples/target/bench-quick unless --out is given, and say 'quick'",
          "  --only LIST   comma-separated parts to run, e.g. --only growth,stall",
          "  --out DIR     where CSVs, the chart and the summary go (default <repo>/docs/bench)",
          "  --work DIR    where the runs' catalogs, tables and logs go (default",
          "                <repo>/samples/target/bench-work); each part's tables are deleted after it",
          "  --keep        keep the tables",
          "  --repo DIR    the floe repository (default: found from this jar's location)",
          "  --chart-only  only redraw <out>/chart.svg from <out>/series-*.csv",
          "  --help        this text",
          "The agent jar (agent/target/floe-agent.jar) and this jar with its lib/ are copied to the work",
          "directory first, so a rebuild of the repository during the run does not change what runs.",
          "Exit code 0 when every run succeeded (whether or not an aim was met), 1 otherwise, 2 on bad",
          "arguments.");

  /** Growth runs: a full collection after every this many commits measures the live heap. */
  static final int HEAP_PROBE_EVERY = 100;
  static final String[] PARTS = {"growth", "throughput", "lowheap", "stall", "overhead"};
  static final String[] MODES = {"unguarded", "maintained", "guarded"};
  static final Map<String, String> MODE_LABEL =
      Map.of(
          "unguarded", "unguarded newFastAppend",
          "maintained", "Iceberg maintenance",
          "guarded", "floe-guarded newFastAppend");
  static final Map<String, String> MODE_COLOR =
      Map.of("unguarded", "#d62728", "maintained", "#1f77b4", "guarded", "#2ca02c");
  private static final Pattern LOG_TIME = Pattern.compile("^(\\d{2}):(\\d{2}):(\\d{2})\\.(\\d{3})\\b");
  private static final Pattern CARRIED = Pattern.compile("carried (\\d+) in (\\d+) files");
  private static final Pattern SNAPSHOTS = Pattern.compile(": (\\d+) snapshots -> 1");

  // ---------------------------------------------------------------------------------------------

  /** Sizes of one run: the full run, or --quick. */
  static final class Sizes {
    final boolean quick;
    final int[] growthCommits;
    final int seriesEvery;
    final long throughputRows;
    final int throughputFiles;
    final long lowHeapBytes;
    final int lowHeapFiles;
    final long[] stallRows;
    final int stallPreloadCommits;
    final int stallWarmCommits;
    final int stallAfter;
    final int overheadPairs;
    final int overheadCommits;

    Sizes(boolean quick) {
      this.quick = quick;
      growthCommits = quick ? new int[] {100, 200} : new int[] {500, 1000, 2000};
      seriesEvery = quick ? 10 : 20;
      throughputRows = quick ? 200_000 : 2_000_000;
      throughputFiles = quick ? 10 : 40;
      lowHeapBytes = quick ? 100L << 20 : (long) (5.25 * (128L << 20));
      lowHeapFiles = quick ? 20 : 200;
      stallRows = quick ? new long[] {100_000, 400_000} : new long[] {1_000_000, 5_000_000, 20_000_000};
      stallPreloadCommits = 20;
      stallWarmCommits = quick ? 60 : 100;
      stallAfter = quick ? 20 : 50;
      overheadPairs = quick ? 1 : 5;
      overheadCommits = quick ? 100 : 500;
    }
  }

  private final Path repo;
  private final Path out;
  private final Path work;
  private final Sizes sizes;
  private final boolean keep;
  private final String java;
  private String classPath;
  private Path agentJar;
  private final Path floeProperties;
  private final List<Figure> figures = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();
  private final List<String> loads = new ArrayList<>();

  private Bench(Path repo, Path out, Path work, Sizes sizes, boolean keep) {
    this.repo = repo;
    this.out = out;
    this.work = work;
    this.sizes = sizes;
    this.keep = keep;
    this.java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    this.floeProperties = repo.resolve("samples/floe.properties");
  }

  public static void main(String[] args) {
    int status;
    try {
      status = run(args);
    } catch (IllegalArgumentException e) {
      System.out.println("bench: " + e.getMessage() + " (--help for usage)");
      status = 2;
    } catch (Exception e) {
      System.out.println("bench: error: " + Ingest.describe(e));
      status = 1;
    }
    System.exit(status);
  }

  private static int run(String[] args) throws Exception {
    boolean quick = false;
    boolean keep = false;
    boolean chartOnly = false;
    Path repo = null;
    Path out = null;
    Path work = null;
    Set<String> only = new LinkedHashSet<>(Arrays.asList(PARTS));
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--help":
        case "-h":
          System.out.println(USAGE);
          return 0;
        case "--quick":
          quick = true;
          break;
        case "--keep":
          keep = true;
          break;
        case "--chart-only":
          chartOnly = true;
          break;
        case "--only":
          only = new LinkedHashSet<>();
          for (String part : value(args, ++i, arg).split(",")) {
            if (!Arrays.asList(PARTS).contains(part.trim())) {
              throw new IllegalArgumentException(
                  "unknown part '" + part + "'; parts: " + String.join(",", PARTS));
            }
            only.add(part.trim());
          }
          break;
        case "--out":
          out = Paths.get(value(args, ++i, arg));
          break;
        case "--work":
          work = Paths.get(value(args, ++i, arg));
          break;
        case "--repo":
          repo = Paths.get(value(args, ++i, arg));
          break;
        default:
          throw new IllegalArgumentException("unknown argument " + arg);
      }
    }
    repo = (repo != null ? repo : Demo.locateRepo()).toAbsolutePath().normalize();
    if (out == null) {
      out = quick ? repo.resolve("samples/target/bench-quick") : repo.resolve("docs/bench");
    }
    if (work == null) {
      work = repo.resolve("samples/target/bench-work");
    }
    Bench bench =
        new Bench(repo, out.toAbsolutePath().normalize(), work.toAbsolutePath().normalize(), new Sizes(quick), keep);
    if (chartOnly) {
      bench.chart();
      return 0;
    }
    return bench.runParts(only);
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  private int runParts(Set<String> parts) throws Exception {
    Path builtAgent = repo.resolve("agent/target/floe-agent.jar");
    if (!Files.isRegularFile(builtAgent)) {
      System.out.println(
          "bench: the agent jar " + builtAgent + " does not exist: build it first"
              + " (mvn -B -ntp -q -DskipTests package)");
      return 2;
    }
    if (!Files.isRegularFile(floeProperties)) {
      throw new IllegalArgumentException(floeProperties + " does not exist: is " + repo + " the floe repository?");
    }
    Files.createDirectories(out);
    Files.createDirectories(work.resolve("logs"));
    snapshotJars(builtAgent);
    long start = System.nanoTime();
    System.out.printf(
        Locale.ROOT,
        "bench: %s run of %s on %s; results in %s, runs under %s%n",
        sizes.quick ? "a QUICK (smoke-test)" : "the full",
        String.join(", ", parts),
        machine(),
        out,
        work);
    if (loadAverage() > Runtime.getRuntime().availableProcessors()) {
      System.out.printf(
          Locale.ROOT,
          "bench: warning: the system load average is %.1f on %d cores: other work competes with the"
              + " runs, and timings will be noisy%n",
          loadAverage(), Runtime.getRuntime().availableProcessors());
    }
    for (String part : parts) {
      long t0 = System.nanoTime();
      System.out.println();
      loads.add(String.format(Locale.ROOT, "%s %.1f", part, loadAverage()));
      System.out.printf(Locale.ROOT, "== %s (system load average %.1f)%n", part, loadAverage());
      try {
        switch (part) {
          case "growth":
            growth();
            break;
          case "throughput":
            throughput();
            break;
          case "lowheap":
            lowHeap();
            break;
          case "stall":
            stall();
            break;
          case "overhead":
            overhead();
            break;
          default:
            throw new IllegalStateException(part);
        }
      } catch (Exception e) {
        failures.add(part + ": " + Ingest.describe(e));
        System.out.println("bench: " + part + " failed: " + Ingest.describe(e));
      }
      System.out.printf(Locale.ROOT, "== %s took %.0f s%n", part, (System.nanoTime() - t0) / 1e9);
    }
    System.out.println();
    String table = Figure.table(figures);
    System.out.print(table);
    writeSummary(parts, (System.nanoTime() - start) / 1e9);
    for (String failure : failures) {
      System.out.println("bench: FAILED " + failure);
    }
    System.out.printf(
        Locale.ROOT, "bench: done in %.1f min; summary in %s%n",
        (System.nanoTime() - start) / 60e9, out.resolve("summary.md"));
    return failures.isEmpty() ? 0 : 1;
  }

  /** Copies the agent jar and this jar with its lib/ into the work directory. */
  private void snapshotJars(Path builtAgent) throws IOException {
    Path cp = work.resolve("cp");
    Files.createDirectories(cp);
    agentJar = cp.resolve("floe-agent.jar");
    Files.copy(builtAgent, agentJar, StandardCopyOption.REPLACE_EXISTING);
    String own = Demo.childClassPath();
    Path ownJar = Paths.get(own);
    if (own.endsWith(".jar") && Files.isRegularFile(ownJar) && ownJar.getParent() != null) {
      Path lib = ownJar.getParent().resolve("lib");
      Path copiedLib = cp.resolve("lib");
      Files.createDirectories(copiedLib);
      if (Files.isDirectory(lib)) {
        try (Stream<Path> jars = Files.list(lib)) {
          for (Path jar : (Iterable<Path>) jars::iterator) {
            Files.copy(jar, copiedLib.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
      Path copied = cp.resolve("floe-samples.jar");
      Files.copy(ownJar, copied, StandardCopyOption.REPLACE_EXISTING);
      classPath = copied.toString();
    } else {
      classPath = own; // running from classes (an IDE, a test): use them as they are
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 1. growth

  private void growth() throws Exception {
    int[] ns = sizes.growthCommits;
    int maxN = ns[ns.length - 1];
    Map<String, Map<Integer, Map<String, String>>> results = new LinkedHashMap<>();
    List<String> csv = new ArrayList<>();
    csv.add(
        "mode,commits,snapshots,metadataBytes,liveMetadataBytes,maxMetadataBytes,dataFiles,rows,"
            + "firstP50Ms,firstP99Ms,lastP50Ms,lastP99Ms,p50Ms,p99Ms,scanMs,peakHeapBytes,"
            + "peakLiveHeapBytes,liveHeapBytes,elapsedMs,maintenanceMs,rebuilds");
    for (int n : ns) {
      for (String mode : MODES) {
        Path dir = freshDir("growth-" + mode + "-" + n);
        Path series = dir.resolve("series.csv");
        List<String> jvm = new ArrayList<>();
        if (mode.equals("guarded")) {
          jvm.add("-javaagent:" + agentJar + "=" + floeProperties);
          if (sizes.quick) {
            jvm.add("-Dfloe.trigger.snapshots=50");
          }
        }
        jvm.add("-Dingest.mode=" + (mode.equals("maintained") ? "maintained" : "fast"));
        jvm.add("-Dingest.series-csv=" + series);
        jvm.add("-Dingest.series-every=" + sizes.seriesEvery);
        jvm.add("-Dingest.heap-probe-every=" + HEAP_PROBE_EVERY);
        Child child =
            Child.run(
                this, "growth-" + mode + "-" + n, jvm, Ingest.class.getName(),
                List.of(catalogProperties(dir).toString(), "bench.events", Integer.toString(n), "10", "1"));
        Map<String, String> r = child.requireResult();
        List<double[]> rows = readSeries(series);
        long maxMetadata = 0;
        for (double[] row : rows) {
          maxMetadata = Math.max(maxMetadata, (long) row[5]);
        }
        r.put("maxMetadataBytes", Long.toString(maxMetadata));
        r.put("rebuilds", Integer.toString(child.rebuildLines.size()));
        results.computeIfAbsent(mode, m -> new LinkedHashMap<>()).put(n, r);
        csv.add(
            String.join(
                ",",
                mode, r.get("commits"), r.get("snapshots"), r.get("metadataBytes"),
                r.get("liveMetadataBytes"), r.get("maxMetadataBytes"), r.get("dataFiles"), r.get("rows"),
                r.get("firstP50Ms"), r.get("firstP99Ms"), r.get("lastP50Ms"), r.get("lastP99Ms"),
                r.get("p50Ms"), r.get("p99Ms"), r.get("scanMs"), r.get("peakHeapBytes"),
                r.get("peakLiveHeapBytes"), r.get("liveHeapBytes"), r.get("elapsedMs"), r.get("maintenanceMs"),
                r.get("rebuilds")));
        if (n == maxN) {
          Files.copy(series, out.resolve("series-" + mode + ".csv"), StandardCopyOption.REPLACE_EXISTING);
        }
        System.out.printf(
            Locale.ROOT,
            "  %-10s N=%-5d metadata %s (live %s), data files %s, p50 first/last %s/%s ms, scan %s ms,"
                + " heap: peak used %s, live %s, %d rebuilds%n",
            mode, n, bytes(r.get("metadataBytes")), bytes(r.get("liveMetadataBytes")), r.get("dataFiles"),
            r.get("firstP50Ms"), r.get("lastP50Ms"), r.get("scanMs"), bytes(r.get("peakHeapBytes")),
            bytes(r.get("liveHeapBytes")), child.rebuildLines.size());
        deleteUnlessKept(dir, series);
      }
    }
    Files.write(out.resolve("growth.csv"), csv);
    chart();

    // figures: metadata, latency, scan, heap
    Map<Integer, Map<String, String>> g = results.get("guarded");
    Map<Integer, Map<String, String>> u = results.get("unguarded");
    Map<Integer, Map<String, String>> m = results.get("maintained");
    for (int n : ns) {
      figures.add(
          Figure.ratio(
              "1", "metadata on disk, N=" + n, "guarded", num(g.get(n), "metadataBytes"), "unguarded",
              num(u.get(n), "metadataBytes"), "B", n == maxN ? 0.01 : Double.NaN, n == maxN ? "<= 0.01" : ""));
    }
    for (int n : ns) {
      figures.add(
          Figure.ratio(
              "1", "metadata on disk, N=" + n, "guarded", num(g.get(n), "metadataBytes"), "maintained",
              num(m.get(n), "metadataBytes"), "B", Double.NaN, ""));
    }
    figures.add(
        Figure.ratio(
            "1", "live metadata, N=" + maxN, "guarded", num(g.get(maxN), "liveMetadataBytes"), "unguarded",
            num(u.get(maxN), "liveMetadataBytes"), "B", Double.NaN, ""));
    figures.add(
        Figure.ratio(
            "1", "max metadata on disk during the run", "guarded N=" + maxN, num(g.get(maxN), "maxMetadataBytes"),
            "unguarded N=" + maxN, num(u.get(maxN), "maxMetadataBytes"), "B", Double.NaN, ""));
    figures.add(
        Figure.ratio(
            "1", "metadata on disk flat in N", "guarded N=" + maxN, num(g.get(maxN), "metadataBytes"),
            "guarded N=" + ns[0], num(g.get(ns[0]), "metadataBytes"), "B", 1.5, "<= 1.5 (flat)"));
    figures.add(
        Figure.ratio(
            "1", "metadata on disk growth in N", "unguarded N=" + maxN, num(u.get(maxN), "metadataBytes"),
            "unguarded N=" + ns[0], num(u.get(ns[0]), "metadataBytes"), "B", Double.NaN, ""));
    for (String mode : MODES) {
      Map<String, String> r = results.get(mode).get(maxN);
      figures.add(
          Figure.ratio(
              "1", "commit p50, last/first 100, N=" + maxN, mode + " last", num(r, "lastP50Ms"),
              mode + " first", num(r, "firstP50Ms"), "ms", mode.equals("guarded") ? 1.1 : Double.NaN,
              mode.equals("guarded") ? "<= 1.1" : ""));
      figures.add(
          Figure.ratio(
              "1", "commit p99, last/first 100, N=" + maxN, mode + " last", num(r, "lastP99Ms"),
              mode + " first", num(r, "firstP99Ms"), "ms", Double.NaN, ""));
    }
    figures.add(
        Figure.ratio(
            "1", "commit p50 last 100, N=" + maxN, "guarded", num(g.get(maxN), "lastP50Ms"), "unguarded",
            num(u.get(maxN), "lastP50Ms"), "ms", Double.NaN, ""));
    figures.add(
        Figure.ratio(
            "1", "commit p50 last 100, N=" + maxN, "guarded", num(g.get(maxN), "lastP50Ms"), "maintained",
            num(m.get(maxN), "lastP50Ms"), "ms", Double.NaN, ""));
    figures.add(
        Figure.ratio(
            "1", "data files, N=" + maxN, "guarded", num(g.get(maxN), "dataFiles"), "maintained",
            num(m.get(maxN), "dataFiles"), "", Double.NaN, ""));
    for (int n : ns) {
      figures.add(
          Figure.ratio(
              "1", "full scan, N=" + n, "guarded", num(g.get(n), "scanMs"), "maintained",
              num(m.get(n), "scanMs"), "ms", n == maxN ? 0.2 : Double.NaN, n == maxN ? "<= 0.2" : ""));
    }
    figures.add(
        Figure.ratio(
            "1", "full scan, N=" + maxN, "guarded", num(g.get(maxN), "scanMs"), "unguarded",
            num(u.get(maxN), "scanMs"), "ms", Double.NaN, ""));
    figures.add(
        Figure.ratio(
            "1", "peak live heap (full GC every " + HEAP_PROBE_EVERY + " commits), N=" + maxN, "guarded",
            num(g.get(maxN), "liveHeapBytes"), "unguarded", num(u.get(maxN), "liveHeapBytes"), "B", Double.NaN, ""));
    figures.add(
        Figure.ratio(
            "1", "peak live heap (full GC every " + HEAP_PROBE_EVERY + " commits), N=" + maxN, "guarded",
            num(g.get(maxN), "liveHeapBytes"), "maintained", num(m.get(maxN), "liveHeapBytes"), "B", Double.NaN, ""));
    figures.add(
        Figure.ratio(
            "1", "peak used heap (sampled), N=" + maxN, "guarded", num(g.get(maxN), "peakHeapBytes"),
            "unguarded", num(u.get(maxN), "peakHeapBytes"), "B", Double.NaN, ""));
  }

  /** Redraws chart.svg from the series CSVs in the output directory. */
  private void chart() throws IOException {
    List<SvgChart.Line> metadata = new ArrayList<>();
    List<SvgChart.Line> latency = new ArrayList<>();
    int commits = 0;
    for (String mode : MODES) {
      Path file = out.resolve("series-" + mode + ".csv");
      if (!Files.isRegularFile(file)) {
        continue;
      }
      List<double[]> rows = readSeries(file);
      commits = Math.max(commits, rows.size());
      List<double[]> bytes = new ArrayList<>();
      List<double[]> p50 = new ArrayList<>();
      double[] window = new double[50];
      for (int i = 0; i < rows.size(); i++) {
        double[] row = rows.get(i);
        if (row[5] >= 0) {
          bytes.add(new double[] {row[0], row[5]});
        }
        window[i % window.length] = row[2];
        if (i + 1 >= window.length) {
          double[] sorted = window.clone();
          Arrays.sort(sorted);
          p50.add(new double[] {row[0], (sorted[24] + sorted[25]) / 2});
        }
      }
      String label = MODE_LABEL.get(mode);
      metadata.add(new SvgChart.Line(label, MODE_COLOR.get(mode), bytes));
      latency.add(new SvgChart.Line(label, MODE_COLOR.get(mode), p50));
    }
    if (metadata.isEmpty()) {
      System.out.println("bench: no series-*.csv in " + out + ": no chart");
      return;
    }
    String svg =
        SvgChart.render(
            String.format(Locale.ROOT, "The sample ingest, %,d single-file commits of 10 rows", commits),
            String.format(
                Locale.ROOT, "%s%s, %s; floe-guarded: samples/floe.properties (rebuild at %s snapshots)",
                sizes.quick ? "QUICK smoke-test sizes, " : "", LocalDate.now(), machine(),
                sizes.quick ? "50" : "200"),
            List.of(
                new SvgChart.Panel(
                    "Metadata on disk (log scale)", "commits", "bytes under metadata/", true,
                    Bench::tickBytes, metadata),
                new SvgChart.Panel(
                    "Commit latency, p50 of the last 50 commits", "commits", "milliseconds", false,
                    v -> String.format(Locale.ROOT, v == Math.rint(v) ? "%.0f" : "%.1f", v), latency)));
    Files.writeString(out.resolve("chart.svg"), svg);
    System.out.println("  chart: " + out.resolve("chart.svg"));
  }

  /** Series rows: commit, endEpochMs, latencyMs, expireMs, snapshots, metadataBytes (-1: none). */
  static List<double[]> readSeries(Path file) throws IOException {
    List<double[]> rows = new ArrayList<>();
    List<String> lines = Files.readAllLines(file);
    for (int i = 1; i < lines.size(); i++) {
      String[] f = lines.get(i).split(",", -1);
      if (f.length < 6) {
        continue;
      }
      rows.add(
          new double[] {
            Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]),
            Double.parseDouble(f[3]), Double.parseDouble(f[4]), f[5].isEmpty() ? -1 : Double.parseDouble(f[5])
          });
    }
    return rows;
  }

  // ---------------------------------------------------------------------------------------------
  // 2. throughput

  private void throughput() throws Exception {
    Path dir = freshDir("throughput");
    long rows = sizes.throughputRows;
    int files = sizes.throughputFiles;
    Child child =
        Child.run(
            this, "throughput",
            List.of(
                "-javaagent:" + agentJar + "=" + floeProperties,
                "-Dfloe.trigger.snapshots=" + (files + 1)),
            RebuildBench.class.getName(),
            List.of("throughput", catalogProperties(dir).toString(), Long.toString(rows), Integer.toString(files)));
    Map<String, String> r = child.requireResult();
    List<String> csv = new ArrayList<>();
    csv.add("round,side,rows,inputBytes,outputBytes,ms,rowsPerSec,mbPerSec");
    for (String round : List.of("warm", "measured")) {
      String p = round.equals("warm") ? "warm." : "";
      double input = num(r, p + "inputBytes");
      double pjMs = num(r, p + "pjReadWriteMs");
      double floeMs = num(r, p + "floeStreamMs");
      double floeRows = num(r, p + "floeRows");
      double floeInput = num(r, p + "floeInputBytes");
      csv.add(String.format(Locale.ROOT, "%s,parquet-java read only,%d,%d,,%s,%.0f,%.2f", round, rows, (long) input,
          r.get(p + "pjReadMs"), rows / (num(r, p + "pjReadMs") / 1000), input / 1e6 / (num(r, p + "pjReadMs") / 1000)));
      csv.add(String.format(Locale.ROOT, "%s,parquet-java read+write,%d,%d,%s,%.0f,%.0f,%.2f", round, rows, (long) input,
          r.get(p + "pjOutputBytes"), pjMs, rows / (pjMs / 1000), input / 1e6 / (pjMs / 1000)));
      csv.add(String.format(Locale.ROOT, "%s,floe rebuild stream,%d,%d,%s,%.0f,%.0f,%.2f", round, (long) floeRows,
          (long) floeInput, r.get(p + "floeOutputBytes"), floeMs, floeRows / (floeMs / 1000), floeInput / 1e6 / (floeMs / 1000)));
      if (round.equals("measured")) {
        figures.add(
            Figure.ratio(
                "2", String.format(Locale.ROOT, "rebuild rows/s (%,d rows, %d files)", rows, files),
                "floe stream", floeRows / (floeMs / 1000), "parquet-java read+write", rows / (pjMs / 1000),
                "rows/s", -0.8, ">= 0.8"));
        figures.add(
            Figure.ratio(
                "2", "rebuild MB/s (input bytes)", "floe stream", floeInput / 1e6 / (floeMs / 1000),
                "parquet-java read+write", input / 1e6 / (pjMs / 1000), "MB/s", -0.8, ">= 0.8"));
        figures.add(
            Figure.ratio(
                "2", "rebuild, whole (all phases) vs stream", "floe all phases", num(r, "floeRebuildMs"),
                "floe stream", floeMs, "ms", Double.NaN, ""));
        figures.add(
            Figure.ratio(
                "2", "output bytes", "floe", num(r, "floeOutputBytes"), "parquet-java",
                num(r, "pjOutputBytes"), "B", Double.NaN, ""));
      }
      System.out.printf(
          Locale.ROOT,
          "  %-8s parquet-java read %s ms, read+write %s ms; floe stream %s ms (rebuild %s ms)%n",
          round, r.get(p + "pjReadMs"), r.get(p + "pjReadWriteMs"), r.get(p + "floeStreamMs"),
          r.get(p + "floeRebuildMs"));
    }
    Files.write(out.resolve("throughput.csv"), csv);
    deleteUnlessKept(dir, null);
  }

  // ---------------------------------------------------------------------------------------------
  // 3. low heap

  private void lowHeap() throws Exception {
    Path dir = freshDir("lowheap");
    int files = sizes.lowHeapFiles;
    Child child =
        Child.run(
            this, "lowheap",
            List.of(
                "-Xmx128m",
                "-javaagent:" + agentJar + "=" + floeProperties,
                "-Dfloe.trigger.snapshots=" + (files + 1)),
            RebuildBench.class.getName(),
            List.of("low-heap", catalogProperties(dir).toString(), Long.toString(sizes.lowHeapBytes),
                Integer.toString(files)));
    Map<String, String> r = child.result;
    if (r == null) {
      throw new IllegalStateException("the low-heap host printed no RESULT (exit " + child.exitCode + "): " + child.lastError());
    }
    List<String> csv = new ArrayList<>();
    csv.add("ok,rows,dataBytes,maxHeapBytes,dataToHeap,peakHeapBytes,peakLiveHeapBytes,rebuildMs,streamMs,filesAfter,exitCode");
    csv.add(String.join(",", r.get("ok"), r.get("rows"), r.get("dataBytes"), r.get("maxHeapBytes"),
        r.get("dataToHeap"), r.get("peakHeapBytes"), r.get("peakLiveHeapBytes"), r.getOrDefault("rebuildMs", ""),
        r.getOrDefault("streamMs", ""), r.getOrDefault("filesAfter", ""), Integer.toString(child.exitCode)));
    Files.write(out.resolve("lowheap.csv"), csv);
    boolean ok = "true".equals(r.get("ok"));
    System.out.printf(
        Locale.ROOT,
        "  -Xmx128m rebuild of %s (%sx the heap): %s; peak heap %s used, %s live after GC%n",
        bytes(r.get("dataBytes")), r.get("dataToHeap"), ok ? "succeeded" : "FAILED " + r.getOrDefault("error", ""),
        bytes(r.get("peakHeapBytes")), bytes(r.get("peakLiveHeapBytes")));
    figures.add(
        Figure.ratio(
            "3", "-Xmx128m rebuild: table on disk / max heap" + (ok ? " (succeeded)" : " (FAILED)"),
            "data", num(r, "dataBytes"), "max heap", num(r, "maxHeapBytes"), "B", -5, ">= 5, and succeeds"));
    figures.add(
        Figure.ratio(
            "3", "-Xmx128m rebuild: peak live heap (after GC)", "peak live", num(r, "peakLiveHeapBytes"),
            "max heap", num(r, "maxHeapBytes"), "B", Double.NaN, ""));
    figures.add(
        Figure.ratio(
            "3", "-Xmx128m rebuild: peak used heap (sampled)", "peak used", num(r, "peakHeapBytes"),
            "max heap", num(r, "maxHeapBytes"), "B", Double.NaN, ""));
    if (!ok) {
      failures.add("lowheap: the rebuild at -Xmx128m did not succeed: " + r.getOrDefault("error", child.lastError()));
    }
    deleteUnlessKept(dir, null);
  }

  // ---------------------------------------------------------------------------------------------
  // 4. append stall

  private void stall() throws Exception {
    List<String> csv = new ArrayList<>();
    csv.add(
        "tableRows,normalP50Ms,worstMs,stallMs,worstCommit,p99DuringMs,commitsDuringRebuild,snapshotsAtRebuild,"
            + "carriedFiles,rebuildMs,streamMs,commitPhaseMs,swapPhaseMs,firstCollapseAt,commits,rowsReadBack");
    List<double[]> stalls = new ArrayList<>();
    for (long tableRows : sizes.stallRows) {
      String name = "stall-" + tableRows;
      Path dir = freshDir(name);
      Path props = catalogProperties(dir);
      int preload = sizes.stallPreloadCommits;
      Child load =
          Child.run(
              this, name + "-preload", List.of("-Dingest.verify=false"), Ingest.class.getName(),
              List.of(props.toString(), "bench.events", Integer.toString(preload),
                  Long.toString(tableRows / preload), "2"));
      load.requireResult();
      Path series = dir.resolve("series.csv");
      Child run =
          Child.run(
              this, name,
              List.of(
                  "-javaagent:" + agentJar + "=" + floeProperties,
                  "-Dfloe.trigger.snapshots=" + (preload + sizes.stallWarmCommits),
                  "-Dingest.series-csv=" + series,
                  "-Dingest.series-every=1000000",
                  "-Dingest.stop-after-collapse=" + sizes.stallAfter),
              Ingest.class.getName(),
              List.of(props.toString(), "bench.events", "1000000", "10", "1"));
      Map<String, String> r = run.requireResult();
      if (run.rebuildLines.isEmpty() || "0".equals(r.get("firstCollapseAt"))) {
        throw new IllegalStateException("no rebuild was seen in " + run.log);
      }
      String line = run.rebuildLines.get(0);
      Map<String, Long> phases = RebuildBench.phases(line);
      List<double[]> rows = readSeries(series);
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
      double normal = percentile(before, 50);
      double stall = worst - normal;
      stalls.add(new double[] {tableRows, stall});
      Matcher carried = CARRIED.matcher(line);
      Matcher snapshots = SNAPSHOTS.matcher(line);
      String carriedFiles = carried.find() ? carried.group(2) : "";
      csv.add(
          String.format(
              Locale.ROOT, "%d,%.3f,%.3f,%.3f,%d,%.3f,%d,%s,%s,%d,%d,%d,%d,%s,%s,%s",
              tableRows, normal, worst, stall, worstCommit, percentile(during, 99), during.size(),
              snapshots.find() ? snapshots.group(1) : "", carriedFiles,
              phases.values().stream().mapToLong(Long::longValue).sum(), phases.getOrDefault("stream", -1L),
              phases.getOrDefault("commit", -1L), phases.getOrDefault("swap", -1L), r.get("firstCollapseAt"),
              r.get("commits"), r.get("rows")));
      System.out.printf(
          Locale.ROOT,
          "  %,11d rows: normal p50 %.1f ms, worst during the rebuild %.1f ms (commit %d of %d during it),"
              + " stall %.1f ms; rebuild %s%n",
          tableRows, normal, worst, worstCommit, during.size(), stall, phasesText(phases, carriedFiles));
      figures.add(
          Figure.ratio(
              "4", String.format(Locale.ROOT, "append stall, %,d-row table (worst - normal)", tableRows),
              "worst", worst, "normal p50", normal, "ms", Double.NaN, "stall <= 100 ms",
              stall <= 100, String.format(Locale.ROOT, "stall %.0f ms", stall)));
      figures.add(
          Figure.ratio(
              "4", String.format(Locale.ROOT, "rebuild gate hold, %,d-row table", tableRows),
              "commit+swap", phases.getOrDefault("commit", 0L) + phases.getOrDefault("swap", 0L),
              "stream", phases.getOrDefault("stream", 0L), "ms", Double.NaN, ""));
      deleteUnlessKept(dir, null);
    }
    Files.write(out.resolve("stall.csv"), csv);
    if (stalls.size() > 1) {
      double first = stalls.get(0)[1];
      double last = stalls.get(stalls.size() - 1)[1];
      boolean flat = last <= Math.max(1.5 * first, first + 20);
      figures.add(
          Figure.ratio(
              "4", "append stall flat in table size",
              String.format(Locale.ROOT, "%,d rows", (long) stalls.get(stalls.size() - 1)[0]), last,
              String.format(Locale.ROOT, "%,d rows", (long) stalls.get(0)[0]), first, "ms", Double.NaN,
              "<= 1.5 or +20 ms", flat, null));
    }
  }

  /** The epoch milliseconds of a log line's HH:mm:ss.SSS, on the day nearest to {@code near}. */
  static long logEpochMillis(String line, long near) {
    Matcher m = LOG_TIME.matcher(line);
    if (!m.find()) {
      throw new IllegalStateException("no time of day at the start of the log line: " + line);
    }
    LocalTime time =
        LocalTime.of(
            Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
            Integer.parseInt(m.group(4)) * 1_000_000);
    ZoneId zone = ZoneId.systemDefault();
    LocalDate day = Instant.ofEpochMilli(near).atZone(zone).toLocalDate();
    long best = 0;
    for (int d = -1; d <= 1; d++) {
      long candidate = ZonedDateTime.of(day.plusDays(d), time, zone).toInstant().toEpochMilli();
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

  // ---------------------------------------------------------------------------------------------
  // 5. agent overhead

  private void overhead() throws Exception {
    List<String> csv = new ArrayList<>();
    csv.add("pair,order,noAgentP50Ms,agentP50Ms,p50Ratio,noAgentP99Ms,agentP99Ms,p99Ratio,noAgentElapsedMs,agentElapsedMs");
    List<Double> ratios = new ArrayList<>();
    List<Double> p99Ratios = new ArrayList<>();
    List<Double> plain = new ArrayList<>();
    List<Double> agent = new ArrayList<>();
    for (int pair = 1; pair <= sizes.overheadPairs; pair++) {
      boolean agentFirst = pair % 2 == 0;
      Map<String, String> a = null;
      Map<String, String> b = null;
      for (int leg = 0; leg < 2; leg++) {
        boolean withAgent = (leg == 0) == agentFirst;
        Path dir = freshDir("overhead-" + pair + (withAgent ? "-agent" : "-plain"));
        List<String> jvm = new ArrayList<>();
        if (withAgent) {
          jvm.add("-javaagent:" + agentJar + "=" + floeProperties);
          jvm.add("-Dfloe.trigger.snapshots=1000000");
          jvm.add("-Dfloe.trigger.data-files=1000000");
          jvm.add("-Dfloe.trigger.metadata-bytes=1024GiB");
        }
        jvm.add("-Dingest.verify=false");
        Child child =
            Child.run(
                this, "overhead-" + pair + (withAgent ? "-agent" : "-plain"), jvm, Ingest.class.getName(),
                List.of(catalogProperties(dir).toString(), "bench.events",
                    Integer.toString(sizes.overheadCommits), "10", "1"));
        if (withAgent) {
          a = child.requireResult();
          if (!child.rebuildLines.isEmpty()) {
            throw new IllegalStateException("a rebuild ran with its triggers off: " + child.log);
          }
        } else {
          b = child.requireResult();
        }
        deleteUnlessKept(dir, null);
      }
      double ratio = num(a, "p50Ms") / num(b, "p50Ms");
      double p99Ratio = num(a, "p99Ms") / num(b, "p99Ms");
      ratios.add(ratio);
      p99Ratios.add(p99Ratio);
      agent.add(num(a, "p50Ms"));
      plain.add(num(b, "p50Ms"));
      csv.add(
          String.format(
              Locale.ROOT, "%d,%s,%s,%s,%.4f,%s,%s,%.4f,%s,%s",
              pair, agentFirst ? "agent first" : "no agent first", b.get("p50Ms"), a.get("p50Ms"), ratio,
              b.get("p99Ms"), a.get("p99Ms"), p99Ratio, b.get("elapsedMs"), a.get("elapsedMs")));
      System.out.printf(
          Locale.ROOT, "  pair %d (%s): p50 %s ms without, %s ms with the agent: %.3fx%n",
          pair, agentFirst ? "agent first" : "no agent first", b.get("p50Ms"), a.get("p50Ms"), ratio);
    }
    Files.write(out.resolve("overhead.csv"), csv);
    double median = percentile(ratios, 50);
    double lowest = percentile(ratios, 0);
    double highest = percentile(ratios, 100);
    Figure p50 =
        Figure.ratio(
            "5", String.format(Locale.ROOT, "commit p50, agent attached with triggers off (%d A/B pairs)", ratios.size()),
            "agent", percentile(agent, 50), "no agent", percentile(plain, 50), "ms", Double.NaN, "<= 1.03",
            median <= 1.03,
            String.format(Locale.ROOT, "median of pair ratios; pairs %.3f..%.3f", lowest, highest));
    p50.ratioOverride = median;
    figures.add(p50);
    Figure p99 =
        Figure.ratio(
            "5", "commit p99, agent attached with triggers off", "agent", Double.NaN, "no agent", Double.NaN, "",
            Double.NaN, "", null, "median of pair ratios");
    p99.ratioOverride = percentile(p99Ratios, 50);
    figures.add(p99);
  }

  // ---------------------------------------------------------------------------------------------

  private Path freshDir(String name) throws IOException {
    Path dir = work.resolve(name);
    Demo.deleteRecursively(dir);
    Files.createDirectories(dir);
    return dir;
  }

  private void deleteUnlessKept(Path dir, Path except) throws IOException {
    if (keep) {
      return;
    }
    try (Stream<Path> children = Files.list(dir)) {
      for (Path child : (Iterable<Path>) children::iterator) {
        if (!child.equals(except)) {
          Demo.deleteRecursively(child);
        }
      }
    }
  }

  private static Path catalogProperties(Path dir) throws IOException {
    Path file = dir.resolve("catalog.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "catalog-impl=dev.floe.catalog.MapDbCatalog",
            "warehouse=" + dir.resolve("warehouse"),
            "uri=" + dir.resolve("catalog.db"),
            ""));
    return file;
  }

  static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  static String machine() {
    long memory = -1;
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean) {
      memory =
          ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
              .getTotalMemorySize();
    }
    return String.format(
        Locale.ROOT, "%d cores, %.0f GiB, Java %s", Runtime.getRuntime().availableProcessors(),
        memory / (double) (1L << 30), System.getProperty("java.version"));
  }

  private void writeSummary(Set<String> parts, double seconds) throws IOException {
    List<String> csv = new ArrayList<>();
    csv.add("part,figure,measured,value,comparison,comparisonValue,unit,ratio,aim,met");
    for (Figure f : figures) {
      csv.add(f.csv());
    }
    Files.write(out.resolve("summary.csv"), csv);
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "%s run of %s, %s, on %s; %.0f minutes.%n%n",
            sizes.quick ? "A QUICK (smoke-test sizes, not the benchmark)" : "The full",
            String.join(", ", parts), LocalDate.now(), machine(), seconds / 60));
    md.append(
        String.format(
            Locale.ROOT,
            "System load average (1 min) as each part began: %s; at the end %.1f.%n%n",
            String.join(", ", loads), loadAverage()));
    md.append(Figure.markdown(figures));
    if (!failures.isEmpty()) {
      md.append("\nFailed: ").append(String.join("; ", failures)).append('\n');
    }
    Files.writeString(out.resolve("summary.md"), md.toString());
  }

  static double num(Map<String, String> r, String key) {
    if (r == null || r.get(key) == null) {
      return Double.NaN;
    }
    try {
      return Double.parseDouble(r.get(key));
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  static double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }

  static String bytes(String value) {
    try {
      return decimalBytes(Double.parseDouble(value));
    } catch (NumberFormatException | NullPointerException e) {
      return String.valueOf(value);
    }
  }

  /** A power of ten of bytes, short: 100 kB, 1 MB, 10 GB. */
  static String tickBytes(double n) {
    String[] units = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    double v = n;
    while (v >= 1000 && u < units.length - 1) {
      v /= 1000;
      u++;
    }
    return String.format(Locale.ROOT, "%.0f %s", v, units[u]);
  }

  static String decimalBytes(double n) {
    if (Double.isNaN(n)) {
      return "-";
    }
    String[] units = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    double v = n;
    while (Math.abs(v) >= 1000 && u < units.length - 1) {
      v /= 1000;
      u++;
    }
    return u == 0
        ? String.format(Locale.ROOT, "%.0f B", v)
        : String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u]);
  }

  // ---------------------------------------------------------------------------------------------

  /** One printed figure: a value, its comparison from the same run, the ratio, the aim. */
  static final class Figure {
    final String part;
    final String name;
    final String measured;
    final double value;
    final String comparison;
    final double comparisonValue;
    final String unit;
    final String aim;
    final Boolean met;
    final String note;

    private Figure(
        String part, String name, String measured, double value, String comparison, double comparisonValue,
        String unit, String aim, Boolean met, String note) {
      this.part = part;
      this.name = name;
      this.measured = measured;
      this.value = value;
      this.comparison = comparison;
      this.comparisonValue = comparisonValue;
      this.unit = unit;
      this.aim = aim;
      this.met = met;
      this.note = note;
    }

    /**
     * A figure whose aim is on the ratio: {@code limit > 0} means ratio <= limit, {@code limit < 0}
     * means ratio >= -limit, NaN means no aim.
     */
    static Figure ratio(
        String part, String name, String measured, double value, String comparison, double comparisonValue,
        String unit, double limit, String aim) {
      double ratio = value / comparisonValue;
      Boolean met = null;
      if (!Double.isNaN(limit)) {
        met = !Double.isNaN(ratio) && (limit > 0 ? ratio <= limit : ratio >= -limit);
      }
      return new Figure(part, name, measured, value, comparison, comparisonValue, unit, aim, met, null);
    }

    /** A figure whose aim was judged by the caller ({@code met}), with a note. */
    static Figure ratio(
        String part, String name, String measured, double value, String comparison, double comparisonValue,
        String unit, double ignored, String aim, Boolean met, String note) {
      return new Figure(part, name, measured, value, comparison, comparisonValue, unit, aim, met, note);
    }

    /** The ratio shown, when it is not value / comparisonValue (a median of paired ratios). */
    double ratioOverride = Double.NaN;

    double ratio() {
      return Double.isNaN(ratioOverride) ? value / comparisonValue : ratioOverride;
    }

    String valueText(double v) {
      if (Double.isNaN(v)) {
        return "-";
      }
      switch (unit) {
        case "B":
          return decimalBytes(v);
        case "ms":
          return String.format(Locale.ROOT, v >= 100 ? "%.0f ms" : "%.1f ms", v);
        case "rows/s":
          return String.format(Locale.ROOT, "%,.0f rows/s", v);
        case "MB/s":
          return String.format(Locale.ROOT, "%.1f MB/s", v);
        default:
          return String.format(Locale.ROOT, v == Math.rint(v) ? "%,.0f" : "%.2f", v);
      }
    }

    String ratioText() {
      double r = ratio();
      String text = Double.isNaN(r) ? "" : String.format(Locale.ROOT, r >= 100 ? "%.0fx" : r >= 0.01 ? "%.3fx" : "%.5fx", r);
      if (note != null) {
        text = text.isEmpty() ? note : text + " (" + note + ")";
      }
      return text;
    }

    String metText() {
      return met == null ? "" : met ? "met" : "MISSED";
    }

    String csv() {
      return String.join(
          ",", part, quote(name), quote(measured), Double.isNaN(value) ? "" : Double.toString(value),
          quote(comparison), Double.isNaN(comparisonValue) ? "" : Double.toString(comparisonValue), unit,
          Double.isNaN(ratio()) ? "" : String.format(Locale.ROOT, "%.5f", ratio()), quote(aim), metText());
    }

    private static String quote(String s) {
      return s == null ? "" : s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    static String table(List<Figure> figures) {
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"#", "figure", "measured", "value", "against", "value", "ratio", "aim", ""});
      for (Figure f : figures) {
        rows.add(
            new String[] {
              f.part, f.name, f.measured, f.valueText(f.value), f.comparison, f.valueText(f.comparisonValue),
              f.ratioText(), f.aim, f.metText()
            });
      }
      int[] widths = new int[rows.get(0).length];
      for (String[] row : rows) {
        for (int c = 0; c < row.length; c++) {
          widths[c] = Math.max(widths[c], row[c].length());
        }
      }
      StringBuilder text = new StringBuilder();
      for (int r = 0; r < rows.size(); r++) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < widths.length; c++) {
          boolean right = c == 3 || c == 5 || c == 6;
          String cell = rows.get(r)[c];
          line.append(String.format(Locale.ROOT, "%" + (right ? "" : "-") + widths[c] + "s", cell)).append("  ");
        }
        text.append(line.toString().replaceAll("\\s+$", "")).append('\n');
        if (r == 0) {
          text.append("-".repeat(Arrays.stream(widths).sum() + 2 * widths.length)).append('\n');
        }
      }
      return text.toString();
    }

    static String markdown(List<Figure> figures) {
      StringBuilder md = new StringBuilder();
      md.append("| # | figure | measured | value | against | value | ratio | aim | |\n");
      md.append("|---|---|---|--:|---|--:|--:|---|---|\n");
      for (Figure f : figures) {
        md.append(
            String.format(
                Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                f.part, f.name, f.measured, f.valueText(f.value), f.comparison, f.valueText(f.comparisonValue),
                f.ratioText(), f.aim, f.met == null ? "" : f.met ? "met" : "**missed**"));
      }
      return md.toString();
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** One child JVM: its command, log, exit code, RESULT line and floe's rebuild log lines. */
  static final class Child {
    String name;
    Path log;
    int exitCode = -1;
    Map<String, String> result;
    final List<String> rebuildLines = new ArrayList<>();
    final List<String> tail = new ArrayList<>();
    double seconds;

    static Child run(Bench bench, String name, List<String> jvm, String mainClass, List<String> args)
        throws IOException, InterruptedException {
      Child child = new Child();
      child.name = name;
      child.log = bench.work.resolve("logs").resolve(name + ".log");
      List<String> command = new ArrayList<>();
      command.add(bench.java);
      command.addAll(jvm);
      command.add("-cp");
      command.add(bench.classPath);
      command.add(mainClass);
      command.addAll(args);
      System.out.printf(Locale.ROOT, "  %s: running (log %s)%n", name, child.log);
      long start = System.nanoTime();
      Process process = new ProcessBuilder(command).directory(bench.repo.toFile()).redirectErrorStream(false).start();
      process.getOutputStream().close();
      try (BufferedWriter writer = Files.newBufferedWriter(child.log, StandardCharsets.UTF_8)) {
        writer.write("# " + String.join(" ", command));
        writer.newLine();
        Thread errors = new Thread(() -> child.pump(process.getErrorStream(), writer), name + "-stderr");
        errors.setDaemon(true);
        errors.start();
        child.pump(process.getInputStream(), writer);
        errors.join();
      }
      if (!process.waitFor(2, TimeUnit.HOURS)) {
        process.destroyForcibly();
      }
      child.exitCode = process.waitFor();
      child.seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf(Locale.ROOT, "  %s: exit %d, %.1f s%n", name, child.exitCode, child.seconds);
      return child;
    }

    private void pump(InputStream stream, BufferedWriter writer) {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          synchronized (this) {
            writer.write(line);
            writer.newLine();
            writer.flush();
            Map<String, String> parsed = Demo.parseResult(line);
            if (parsed != null) {
              result = parsed;
              continue;
            }
            if (line.contains(Demo.REBUILT_MARKER)) {
              rebuildLines.add(line);
            }
            tail.add(line);
            if (tail.size() > 30) {
              tail.remove(0);
            }
          }
        }
      } catch (IOException e) {
        synchronized (this) {
          tail.add("bench: cannot read the output of " + name + ": " + e.getMessage());
        }
      }
    }

    Map<String, String> requireResult() {
      if (exitCode != 0 || result == null) {
        throw new IllegalStateException(
            name + " failed (exit " + exitCode + (result == null ? ", no RESULT line" : "") + "): " + lastError()
                + " (log " + log + ")");
      }
      return result;
    }

    synchronized String lastError() {
      for (int i = tail.size() - 1; i >= 0; i--) {
        if (tail.get(i).contains("error") || tail.get(i).contains("Exception")) {
          return tail.get(i);
        }
      }
      return tail.isEmpty() ? "no output" : tail.get(tail.size() - 1);
    }
  }
}
