package dev.floe.bench;

import dev.floe.samples.ChildJvm;
import dev.floe.samples.Repo;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the benchmarks share: where their runs, logs and results go, the jars their child JVMs run,
 * and the figures and failures they report.
 */
final class Harness {
    final Path repo;
    final Path out;
    final Path work;
    final Sizes sizes;
    final Path floeProperties;
    final List<Figure> figures = new ArrayList<>();
    final List<String> failures = new ArrayList<>();
    /** What the summary says beside the figures: measures a run could not take, and why. */
    final List<String> notes = new ArrayList<>();

    private final boolean keep;
    private Path agentJar;
    private String classPath;

    Harness(Path repo, Path out, Path work, Sizes sizes, boolean keep) {
        this.repo = repo;
        this.out = out;
        this.work = work;
        this.sizes = sizes;
        this.keep = keep;
        this.floeProperties = repo.resolve("samples/floe.properties");
    }

    /**
     * Copies the agent jar and this jar with its lib/ into the work directory, so a rebuild of the
     * repository during the run does not change what runs.
     */
    void snapshotJars(Path builtAgent) throws IOException {
        Path cp = work.resolve("cp");
        Files.createDirectories(cp);
        Files.createDirectories(work.resolve("logs"));
        agentJar = cp.resolve("floe-agent.jar");
        Files.copy(builtAgent, agentJar, StandardCopyOption.REPLACE_EXISTING);
        String own = ChildJvm.classPathOf(Bench.class);
        Path ownJar = Path.of(own);
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
            Path copied = cp.resolve(ownJar.getFileName());
            Files.copy(ownJar, copied, StandardCopyOption.REPLACE_EXISTING);
            classPath = copied.toString();
        } else {
            classPath = own; // running from classes (an IDE, a test): use them as they are
        }
    }

    /** {@code -javaagent:<the copied agent jar>=samples/floe.properties}. */
    String agent() {
        return ChildJvm.agentArg(agentJar, floeProperties);
    }

    /** Runs {@code main} as a child JVM in the repository, its log under work/logs/<name>.log. */
    ChildJvm.Run run(String name, List<String> jvm, Class<?> main, List<String> args)
            throws IOException, InterruptedException {
        return run(name, jvm, main, args, line -> {});
    }

    /** {@link #run(String, List, Class, List)}, handing each line the child prints to {@code onLine}. */
    ChildJvm.Run run(
            String name, List<String> jvm, Class<?> main, List<String> args, java.util.function.Consumer<String> onLine)
            throws IOException, InterruptedException {
        Path log = work.resolve("logs").resolve(name + ".log");
        System.out.printf(Locale.ROOT, "  %s: running (log %s)%n", name, log);
        ChildJvm.Run child = new ChildJvm(main.getName(), args)
                .jvm(jvm)
                .classPath(classPath)
                .directory(repo)
                .onLine(onLine)
                .run(log);
        System.out.printf(Locale.ROOT, "  %s: exit %d, %.1f s%n", name, child.exitCode(), child.seconds());
        return child;
    }

    /**
     * The operator CLI, {@code java -jar floe-agent.jar --classpath <this jar and its lib> <args>}, as
     * an operator runs it beside a host: its log under work/logs/<name>.log.
     */
    ChildJvm.Run cli(String name, List<String> args) throws IOException, InterruptedException {
        return cli(name, List.of(), args);
    }

    /** {@link #cli(String, List)} with JVM options (-Dfloe.* settings: the CLI reads them as the agent does). */
    ChildJvm.Run cli(String name, List<String> jvm, List<String> args) throws IOException, InterruptedException {
        Path log = work.resolve("logs").resolve(name + ".log");
        System.out.printf(Locale.ROOT, "  %s: running the CLI (log %s)%n", name, log);
        List<String> all = new ArrayList<>(List.of("--classpath", hostClassPath()));
        all.addAll(args);
        ChildJvm.Run child = new ChildJvm("dev.floe.agent.boot.AgentBoot", all)
                .jvm(jvm)
                .classPath(agentJar.toString())
                .directory(repo)
                .run(log);
        System.out.printf(Locale.ROOT, "  %s: exit %d, %.1f s%n", name, child.exitCode(), child.seconds());
        if (child.exitCode() != 0) {
            throw new IllegalStateException(name + ": the CLI exited " + child.exitCode() + "; see " + log);
        }
        return child;
    }

    /** This jar and every jar of its lib/, as a class path: what the CLI's --classpath is given. */
    private String hostClassPath() throws IOException {
        List<String> entries = new ArrayList<>(List.of(classPath.split(java.io.File.pathSeparator)));
        Path lib = Path.of(entries.get(0)).getParent() == null
                ? null
                : Path.of(entries.get(0)).getParent().resolve("lib");
        if (lib != null && Files.isDirectory(lib)) {
            try (Stream<Path> jars = Files.list(lib)) {
                jars.sorted().forEach(jar -> entries.add(jar.toString()));
            }
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    /** The benchmarks' ingest host on a table bench.events of the catalog in {@code dir}. */
    ChildJvm.Run ingest(String name, List<String> jvm, Path dir, long commits, long rowsPerCommit, int threads)
            throws IOException, InterruptedException {
        return ingest(name, jvm, dir, commits, rowsPerCommit, threads, line -> {});
    }

    /** {@link #ingest(String, List, Path, long, long, int)}, handing each line it prints to {@code onLine}. */
    ChildJvm.Run ingest(
            String name,
            List<String> jvm,
            Path dir,
            long commits,
            long rowsPerCommit,
            int threads,
            java.util.function.Consumer<String> onLine)
            throws IOException, InterruptedException {
        return run(
                name,
                jvm,
                BenchIngest.class,
                List.of(
                        catalogProperties(dir).toString(),
                        "bench.events",
                        Long.toString(commits),
                        Long.toString(rowsPerCommit),
                        Integer.toString(threads)),
                onLine);
    }

    /** An empty directory work/<name>. */
    Path freshDir(String name) throws IOException {
        Path dir = work.resolve(name);
        Repo.deleteRecursively(dir);
        Files.createDirectories(dir);
        return dir;
    }

    /** Deletes what is in {@code dir} but {@code except}, unless --keep. */
    void deleteUnlessKept(Path dir, Path except) throws IOException {
        if (keep) {
            return;
        }
        try (Stream<Path> children = Files.list(dir)) {
            for (Path child : (Iterable<Path>) children::iterator) {
                if (!child.equals(except)) {
                    Repo.deleteRecursively(child);
                }
            }
        }
    }

    /** dir/catalog.properties: a MapDB catalog with its warehouse and file in {@code dir}. */
    static Path catalogProperties(Path dir) throws IOException {
        return catalogFile(
                dir,
                "catalog-impl=dev.floe.catalog.MapDbCatalog",
                "warehouse=" + dir.resolve("warehouse"),
                "uri=" + dir.resolve("catalog.db"));
    }

    /**
     * dir/catalog.properties: Iceberg's JdbcCatalog on a SQLite file in {@code dir}, one connection
     * (SQLite admits one writer) and the V1 schema (views), its warehouse in {@code dir}.
     */
    static Path jdbcCatalogProperties(Path dir) throws IOException {
        return catalogFile(
                dir,
                "catalog-impl=org.apache.iceberg.jdbc.JdbcCatalog",
                "uri=jdbc:sqlite:" + dir.resolve("catalog.sqlite"),
                "warehouse=" + dir.resolve("warehouse"),
                "clients=1",
                "jdbc.schema-version=V1");
    }

    /** dir/catalog.properties of {@code lines}. */
    private static Path catalogFile(Path dir, String... lines) throws IOException {
        Path file = dir.resolve("catalog.properties");
        Files.writeString(file, String.join("\n", lines) + "\n");
        return file;
    }

    /** {@code first}, then the RESULT value of each of {@code keys} (empty if it has none), as a CSV row. */
    static String csvRow(String first, Map<String, String> result, List<String> keys) {
        StringBuilder row = new StringBuilder(first);
        for (String key : keys) {
            row.append(',').append(result.getOrDefault(key, ""));
        }
        return row.toString();
    }

    /** Says {@code text} on the console now and in the summary's notes. */
    void note(String text) {
        notes.add(text);
        System.out.println("  note: " + text);
    }

    /** Writes out/<file>. */
    void write(String file, List<String> lines) throws IOException {
        Files.write(out.resolve(file), lines);
    }

    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    static String machine() {
        long memory = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean) {
            memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getTotalMemorySize();
        }
        return String.format(
                Locale.ROOT,
                "%d cores, %.0f GiB, Java %s",
                Runtime.getRuntime().availableProcessors(),
                memory / (double) (1L << 30),
                System.getProperty("java.version"));
    }

    /** The p-th percentile (nearest rank) of {@code values}; NaN if empty. */
    static double percentile(List<Double> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    /** A RESULT value as a number. */
    static double num(Map<String, String> result, String key) {
        return dev.floe.samples.ResultLine.number(result, key);
    }
}
