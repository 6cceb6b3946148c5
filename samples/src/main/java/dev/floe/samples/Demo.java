package dev.floe.samples;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Runs {@link Ingest} twice as child JVMs, once as it is and once with the floe agent attached,
 * each on a fresh catalog and warehouse, and compares the two runs in a small table.
 *
 * <pre>
 * java -cp samples/target/floe-samples.jar dev.floe.samples.Demo [--skip-agent] [commits [rows-per-commit [threads]]]
 * </pre>
 */
public final class Demo {
  static final String USAGE =
      String.join(
          "\n",
          "usage: java -cp samples/target/floe-samples.jar dev.floe.samples.Demo [options]"
              + " [commits [rows-per-commit [threads]]]",
          "",
          "Runs dev.floe.samples.Ingest twice as child JVMs on fresh catalogs: once as it is (demo/unguarded)",
          "and once with -javaagent:agent/target/floe-agent.jar=samples/floe.properties (demo/guarded),",
          "then compares the two runs. Defaults: 2000 commits of 10 rows, 1 thread. Each run's output goes",
          "to demo/<run>.log.",
          "",
          "options:",
          "  --skip-agent   run only the unguarded half",
          "  --repo DIR     the floe repository (default: found from this jar's location, else the",
          "                 working directory)",
          "  --out DIR      where runs and logs go (default: <repo>/demo)",
          "  --help         this text",
          "System properties -Dingest.* are passed to both runs, -Dfloe.* to the guarded run.",
          "Exit code 0 when every run succeeds; 1 when a run fails; 2 on bad arguments or a missing agent jar.");

  static final String TABLE = "demo.events";
  static final String REBUILT_MARKER = "floe: rebuilt";

  public static void main(String[] args) {
    int status;
    try {
      status = run(args);
    } catch (IllegalArgumentException e) {
      System.out.println("demo: " + e.getMessage() + " (--help for usage)");
      status = 2;
    } catch (Exception e) {
      System.out.println("demo: error: " + Ingest.describe(e));
      status = 1;
    }
    System.exit(status);
  }

  private static int run(String[] args) throws Exception {
    boolean skipAgent = false;
    Path repo = null;
    Path out = null;
    List<Integer> numbers = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--help":
        case "-h":
          System.out.println(USAGE);
          return 0;
        case "--skip-agent":
          skipAgent = true;
          break;
        case "--repo":
          repo = Paths.get(value(args, ++i, arg));
          break;
        case "--out":
          out = Paths.get(value(args, ++i, arg));
          break;
        default:
          if (arg.startsWith("-")) {
            throw new IllegalArgumentException("unknown option " + arg);
          }
          try {
            int n = Integer.parseInt(arg);
            if (n < 1) {
              throw new NumberFormatException();
            }
            numbers.add(n);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + arg + "' is not a whole number >= 1");
          }
      }
    }
    if (numbers.size() > 3) {
      throw new IllegalArgumentException("at most 3 numbers: commits rows-per-commit threads");
    }
    int commits = numbers.size() > 0 ? numbers.get(0) : 2000;
    int rowsPerCommit = numbers.size() > 1 ? numbers.get(1) : 10;
    int threads = numbers.size() > 2 ? numbers.get(2) : 1;

    repo = (repo != null ? repo : locateRepo()).toAbsolutePath().normalize();
    Path agentJar = repo.resolve("agent/target/floe-agent.jar");
    Path floeProperties = repo.resolve("samples/floe.properties");
    Path catalogProperties = repo.resolve("samples/catalog.properties");
    if (!skipAgent && !Files.isRegularFile(agentJar)) {
      System.out.println(
          "demo: the agent jar "
              + agentJar
              + " does not exist: build it (mvn -B install -DskipTests) or run with --skip-agent");
      return 2;
    }
    for (Path needed : skipAgent ? List.of(catalogProperties) : List.of(catalogProperties, floeProperties)) {
      if (!Files.isRegularFile(needed)) {
        throw new IllegalArgumentException(
            needed + " does not exist: is " + repo + " the floe repository? (--repo DIR)");
      }
    }
    out = (out != null ? out : repo.resolve("demo")).toAbsolutePath().normalize();
    Files.createDirectories(out);

    System.out.printf(
        Locale.ROOT,
        "demo: %d commits of %d rows, %d thread%s, table %s; runs and logs under %s%n",
        commits, rowsPerCommit, threads, threads == 1 ? "" : "s", TABLE, out);

    List<Run> runs = new ArrayList<>();
    Run unguarded = new Run("unguarded", null);
    runs.add(unguarded);
    if (!skipAgent) {
      runs.add(new Run("guarded", "-javaagent:" + agentJar + "=" + floeProperties));
    }
    int status = 0;
    for (Run r : runs) {
      r.execute(repo, out, catalogProperties, commits, rowsPerCommit, threads);
      if (r.exitCode != 0 || r.result == null) {
        status = 1;
      }
    }
    System.out.println();
    System.out.print(table(runs));
    for (Run r : runs) {
      System.out.println("log of the " + r.name + " run: " + r.log);
    }
    for (Run r : runs) {
      if (r.exitCode != 0) {
        System.out.println(
            "demo: the " + r.name + " run failed (exit " + r.exitCode + "): " + r.lastError());
      } else if (r.result == null) {
        System.out.println("demo: the " + r.name + " run printed no RESULT line: see " + r.log);
      }
    }
    return status;
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  /** The repository: three levels above this jar (samples/target/x.jar) or classes directory. */
  static Path locateRepo() {
    try {
      Path code =
          Paths.get(Demo.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path candidate = code.getParent() == null ? null : code.getParent().getParent();
      candidate = candidate == null ? null : candidate.getParent();
      if (candidate != null && Files.isRegularFile(candidate.resolve("samples/pom.xml"))) {
        return candidate;
      }
    } catch (URISyntaxException | RuntimeException e) {
      // fall back to the working directory
    }
    for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("samples/pom.xml"))) {
        return dir;
      }
    }
    return Paths.get("").toAbsolutePath();
  }

  /** The class path for the children: this jar (its manifest names lib/), else ours. */
  static String childClassPath() {
    try {
      Path code =
          Paths.get(Demo.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isRegularFile(code) && code.toString().endsWith(".jar")) {
        return code.toString();
      }
    } catch (URISyntaxException | RuntimeException e) {
      // use our own class path
    }
    return System.getProperty("java.class.path");
  }

  /** {@code RESULT k=v k=v ...} as a map; null if {@code line} is no RESULT line. */
  public static Map<String, String> parseResult(String line) {
    if (line == null || !line.startsWith("RESULT ")) {
      return null;
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (String pair : line.substring("RESULT ".length()).trim().split("\\s+")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        values.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return values;
  }

  static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static final class Run {
    final String name;
    final String agentFlag;
    Path log;
    int exitCode = -1;
    Map<String, String> result;
    long rebuildLines;
    final Deque<String> tail = new ArrayDeque<>();

    Run(String name, String agentFlag) {
      this.name = name;
      this.agentFlag = agentFlag;
    }

    void execute(Path repo, Path out, Path catalogProperties, int commits, int rows, int threads)
        throws IOException, InterruptedException {
      Path dir = out.resolve(name);
      deleteRecursively(dir);
      Files.createDirectories(dir);
      log = out.resolve(name + ".log");

      List<String> command = new ArrayList<>();
      command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
      if (agentFlag != null) {
        command.add(agentFlag);
      }
      for (String key : System.getProperties().stringPropertyNames()) {
        if (key.startsWith("ingest.") || (agentFlag != null && key.startsWith("floe."))) {
          command.add("-D" + key + "=" + System.getProperty(key));
        }
      }
      command.add("-Dingest.catalog.warehouse=" + dir.resolve("warehouse"));
      command.add("-Dingest.catalog.uri=" + dir.resolve("catalog.db"));
      command.add("-cp");
      command.add(childClassPath());
      command.add(Ingest.class.getName());
      command.add(catalogProperties.toString());
      command.add(TABLE);
      command.add(Integer.toString(commits));
      command.add(Integer.toString(rows));
      command.add(Integer.toString(threads));

      System.out.printf(
          Locale.ROOT, "%s: starting%s (log: %s)%n",
          name, agentFlag == null ? " without the agent" : " with " + agentFlag, log);
      long start = System.nanoTime();
      Process child = new ProcessBuilder(command).directory(repo.toFile()).start();
      child.getOutputStream().close();
      // stdout and stderr are read apart, a whole line at a time, so a log line the agent writes
      // to stderr never lands in the middle of a RESULT line
      try (BufferedWriter writer = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
        writer.write("# " + String.join(" ", command));
        writer.newLine();
        Thread errors =
            new Thread(() -> pump(child.getErrorStream(), writer), name + "-stderr");
        errors.setDaemon(true);
        errors.start();
        pump(child.getInputStream(), writer);
        errors.join();
      }
      exitCode = child.waitFor();
      System.out.printf(
          Locale.ROOT, "%s: finished, exit %d, %.1f s%n",
          name, exitCode, (System.nanoTime() - start) / 1e9);
    }

    /** Copies {@code stream} line by line into the log, noting RESULT, progress and rebuilds. */
    private void pump(java.io.InputStream stream, BufferedWriter writer) {
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          consume(line, writer);
        }
      } catch (IOException e) {
        synchronized (this) {
          tail.addLast("demo: cannot read the " + name + " run's output: " + e.getMessage());
        }
      }
    }

    private synchronized void consume(String line, BufferedWriter writer) throws IOException {
      writer.write(line);
      writer.newLine();
      writer.flush();
      if (line.contains(REBUILT_MARKER)) {
        rebuildLines++;
      }
      Map<String, String> parsed = parseResult(line);
      if (parsed != null) {
        result = parsed;
        return;
      }
      tail.addLast(line);
      if (tail.size() > 20) {
        tail.removeFirst();
      }
      if (line.startsWith("progress ")) {
        Map<String, String> p = parseResult("RESULT " + line.substring("progress ".length()));
        try {
          System.out.printf(
              Locale.ROOT, "%s: %s commits, %.1f s%s%n",
              name, p.get("commits"), Long.parseLong(p.getOrDefault("elapsedMs", "0")) / 1000.0,
              rebuildLines > 0 ? ", " + rebuildLines + " rebuilds so far" : "");
        } catch (NumberFormatException ignored) {
          // not a progress line of ours after all
        }
      }
    }

    synchronized String lastError() {
      String found = null;
      for (String line : tail) {
        if (line.contains("error")) {
          found = line;
        }
      }
      return found != null ? found : (tail.isEmpty() ? "no output, see " + log : tail.getLast());
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static String table(List<Run> runs) {
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>();
    header.add("");
    runs.forEach(r -> header.add(r.name));
    rows.add(header.toArray(new String[0]));
    addRow(rows, runs, "commits", r -> key(r, "commits"));
    addRow(rows, runs, "final snapshots", r -> key(r, "snapshots"));
    addRow(rows, runs, "metadata on disk", r -> bytes(key(r, "metadataBytes")));
    addRow(rows, runs, "data files", r -> key(r, "dataFiles"));
    addRow(rows, runs, "rows read back", r -> key(r, "rows"));
    addRow(rows, runs, "distinct ids", r -> key(r, "distinctIds"));
    addRow(rows, runs, "commit p50 (ms)", r -> key(r, "p50Ms"));
    addRow(rows, runs, "commit p99 (ms)", r -> key(r, "p99Ms"));
    addRow(rows, runs, "first-100 p50 (ms)", r -> key(r, "firstP50Ms"));
    addRow(rows, runs, "last-100 p50 (ms)", r -> key(r, "lastP50Ms"));
    addRow(rows, runs, "elapsed (s)", r -> seconds(key(r, "elapsedMs")));
    addRow(rows, runs, "rebuilds (log lines)", r -> Long.toString(r.rebuildLines));
    addRow(rows, runs, "history collapses", r -> key(r, "historyCollapses"));
    addRow(rows, runs, "exit code", r -> Integer.toString(r.exitCode));

    int[] widths = new int[header.size()];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    StringBuilder text = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      String[] row = rows.get(r);
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        if (c == 0) {
          line.append(String.format(Locale.ROOT, "%-" + widths[c] + "s", row[c]));
        } else {
          line.append("   ").append(String.format(Locale.ROOT, "%" + widths[c] + "s", row[c]));
        }
      }
      text.append(line.toString().replaceAll("\\s+$", "")).append('\n');
      if (r == 0) {
        text.append("-".repeat(line.length())).append('\n');
      }
    }
    return text.toString();
  }

  private static void addRow(
      List<String[]> rows, List<Run> runs, String label, Function<Run, String> cell) {
    String[] row = new String[runs.size() + 1];
    row[0] = label;
    for (int i = 0; i < runs.size(); i++) {
      row[i + 1] = cell.apply(runs.get(i));
    }
    rows.add(row);
  }

  private static String key(Run r, String key) {
    return r.result == null ? "-" : r.result.getOrDefault(key, "-");
  }

  private static String bytes(String value) {
    try {
      long n = Long.parseLong(value);
      if (n < 0) {
        return "n/a";
      }
      String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
      double v = n;
      int u = 0;
      while (v >= 1024 && u < units.length - 1) {
        v /= 1024;
        u++;
      }
      return u == 0 ? n + " B" : String.format(Locale.ROOT, "%.1f %s (%d B)", v, units[u], n);
    } catch (NumberFormatException e) {
      return value;
    }
  }

  private static String seconds(String millis) {
    try {
      return String.format(Locale.ROOT, "%.1f", Long.parseLong(millis) / 1000.0);
    } catch (NumberFormatException e) {
      return millis;
    }
  }
}
