package dev.floe.samples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Runs {@link Ingest} twice as child JVMs, once as it is and once with the floe agent attached,
 * each on a fresh catalog and warehouse, and compares the two runs in a small table.
 *
 * <pre>
 * java -cp samples/target/floe-samples.jar dev.floe.samples.Demo [--skip-agent] [commits [rows-per-commit [threads]]]
 * </pre>
 */
public final class Demo {
    static final String USAGE = String.join(
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

    public static void main(String[] args) {
        Command.exit("demo", args, Demo::run);
    }

    private static int run(String[] args) throws Exception {
        Command.Line line = Command.parse(args, Set.of("--skip-agent"), Set.of("--repo", "--out"));
        if (line.help()) {
            System.out.println(USAGE);
            return 0;
        }
        boolean skipAgent = line.has("--skip-agent");
        Path repo = line.path("--repo");
        Path out = line.path("--out");
        List<Integer> numbers = new ArrayList<>();
        for (String word : line.words()) {
            try {
                int n = Integer.parseInt(word);
                if (n < 1) {
                    throw new NumberFormatException();
                }
                numbers.add(n);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + word + "' is not a whole number >= 1");
            }
        }
        if (numbers.size() > 3) {
            throw new IllegalArgumentException("at most 3 numbers: commits rows-per-commit threads");
        }
        int commits = numbers.size() > 0 ? numbers.get(0) : 2000;
        int rowsPerCommit = numbers.size() > 1 ? numbers.get(1) : 10;
        int threads = numbers.size() > 2 ? numbers.get(2) : 1;

        repo = (repo != null ? repo : Repo.locate(Demo.class)).toAbsolutePath().normalize();
        Path agentJar = repo.resolve("agent/target/floe-agent.jar");
        Path floeProperties = repo.resolve("samples/floe.properties");
        Path catalogProperties = repo.resolve("samples/catalog.properties");
        if (!skipAgent && !Files.isRegularFile(agentJar)) {
            System.out.println("demo: the agent jar "
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
                commits,
                rowsPerCommit,
                threads,
                threads == 1 ? "" : "s",
                TABLE,
                out);

        List<Run> runs = new ArrayList<>();
        Run unguarded = new Run("unguarded", null);
        runs.add(unguarded);
        if (!skipAgent) {
            runs.add(new Run("guarded", "-javaagent:" + agentJar + "=" + floeProperties));
        }
        int status = 0;
        for (Run r : runs) {
            r.execute(repo, out, catalogProperties, commits, rowsPerCommit, threads);
            if (r.exitCode() != 0 || r.result() == null) {
                status = 1;
            }
        }
        System.out.println();
        System.out.print(table(runs));
        for (Run r : runs) {
            System.out.println("log of the " + r.name + " run: " + r.log);
        }
        for (Run r : runs) {
            if (r.exitCode() != 0) {
                System.out.println(
                        "demo: the " + r.name + " run failed (exit " + r.exitCode() + "): " + r.child.lastError());
            } else if (r.result() == null) {
                System.out.println("demo: the " + r.name + " run printed no RESULT line: see " + r.log);
            }
        }
        return status;
    }

    private static final class Run {
        final String name;
        final String agentFlag;
        Path log;
        ChildJvm.Run child;
        int rebuilds;

        Run(String name, String agentFlag) {
            this.name = name;
            this.agentFlag = agentFlag;
        }

        void execute(Path repo, Path out, Path catalogProperties, int commits, int rows, int threads)
                throws IOException, InterruptedException {
            Path dir = out.resolve(name);
            Repo.deleteRecursively(dir);
            Files.createDirectories(dir);
            log = out.resolve(name + ".log");

            List<String> jvm = new ArrayList<>();
            if (agentFlag != null) {
                jvm.add(agentFlag);
            }
            for (String key : System.getProperties().stringPropertyNames()) {
                if (key.startsWith("ingest.") || (agentFlag != null && key.startsWith("floe."))) {
                    jvm.add("-D" + key + "=" + System.getProperty(key));
                }
            }
            jvm.add("-Dingest.catalog.warehouse=" + dir.resolve("warehouse"));
            jvm.add("-Dingest.catalog.uri=" + dir.resolve("catalog.db"));
            List<String> args = List.of(
                    catalogProperties.toString(),
                    TABLE,
                    Integer.toString(commits),
                    Integer.toString(rows),
                    Integer.toString(threads));

            System.out.printf(
                    Locale.ROOT,
                    "%s: starting%s (log: %s)%n",
                    name,
                    agentFlag == null ? " without the agent" : " with " + agentFlag,
                    log);
            child = new ChildJvm(Ingest.class.getName(), args)
                    .jvm(jvm)
                    .classPath(ChildJvm.classPathOf(Demo.class))
                    .directory(repo)
                    .onLine(this::progress)
                    .run(log);
            System.out.printf(Locale.ROOT, "%s: finished, exit %d, %.1f s%n", name, child.exitCode(), child.seconds());
        }

        /** Echoes the child's progress lines, with the rebuilds floe has logged so far. */
        private synchronized void progress(String line) {
            if (line.contains(ChildJvm.REBUILT_MARKER)) {
                rebuilds++;
            }
            if (line.startsWith("progress ")) {
                Map<String, String> p = ResultLine.pairs(line.substring("progress ".length()));
                try {
                    System.out.printf(
                            Locale.ROOT,
                            "%s: %s commits, %.1f s%s%n",
                            name,
                            p.get("commits"),
                            Long.parseLong(p.getOrDefault("elapsedMs", "0")) / 1000.0,
                            rebuilds > 0 ? ", " + rebuilds + " rebuilds so far" : "");
                } catch (NumberFormatException ignored) {
                    // not a progress line of ours after all
                }
            }
        }

        int exitCode() {
            return child == null ? -1 : child.exitCode();
        }

        Map<String, String> result() {
            return child == null ? null : child.result();
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
        addRow(rows, runs, "snapshots since a rewrite", r -> key(r, "sinceRewrite"));
        addRow(rows, runs, "metadata on disk", r -> Units.binaryBytes(key(r, "metadataBytes")));
        addRow(rows, runs, "data files", r -> key(r, "dataFiles"));
        addRow(rows, runs, "rows read back", r -> key(r, "rows"));
        addRow(rows, runs, "distinct ids", r -> key(r, "distinctIds"));
        addRow(rows, runs, "commit p50 (ms)", r -> key(r, "p50Ms"));
        addRow(rows, runs, "commit p99 (ms)", r -> key(r, "p99Ms"));
        addRow(rows, runs, "first-100 p50 (ms)", r -> key(r, "firstP50Ms"));
        addRow(rows, runs, "last-100 p50 (ms)", r -> key(r, "lastP50Ms"));
        addRow(rows, runs, "elapsed (s)", r -> Units.seconds(key(r, "elapsedMs")));
        addRow(
                rows,
                runs,
                "rebuilds (log lines)",
                r -> Integer.toString(
                        r.child == null ? 0 : r.child.rebuildLines().size()));
        addRow(rows, runs, "history collapses", r -> key(r, "historyCollapses"));
        addRow(rows, runs, "exit code", r -> Integer.toString(r.exitCode()));

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

    private static void addRow(List<String[]> rows, List<Run> runs, String label, Function<Run, String> cell) {
        String[] row = new String[runs.size() + 1];
        row[0] = label;
        for (int i = 0; i < runs.size(); i++) {
            row[i + 1] = cell.apply(runs.get(i));
        }
        rows.add(row);
    }

    private static String key(Run r, String key) {
        return r.result() == null ? "-" : r.result().getOrDefault(key, "-");
    }
}
