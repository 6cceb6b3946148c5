package dev.floe.agent.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** A real separate JVM: the host program, with or without the agent, and what it printed. */
public final class Jvm {
    public static final Path AGENT_JAR = Path.of("target", "floe-agent.jar").toAbsolutePath();
    public static final Path SAMPLES_JAR = Path.of("..", "samples", "target", "floe-samples.jar")
            .toAbsolutePath()
            .normalize();

    /** floe-runtime's classes: what a host that brings its own prune class compiles and runs against. */
    public static final Path RUNTIME_CLASSES =
            Path.of("..", "runtime", "target", "classes").toAbsolutePath().normalize();

    public record Run(int exitCode, String output) {
        /** The key=value pairs of the sample ingest's RESULT line. */
        public java.util.Map<String, String> result() {
            return result("");
        }

        /** The last RESULT line printed after {@code prefix} (a launcher's {@code run <n> }), as key to value. */
        public java.util.Map<String, String> result(String prefix) {
            String line = output.lines()
                    .filter(l -> l.startsWith(prefix + "RESULT "))
                    .reduce((a, b) -> b)
                    .orElseThrow(() -> new AssertionError("no RESULT line in:\n" + output));
            java.util.Map<String, String> values = new java.util.LinkedHashMap<>();
            Matcher m = Pattern.compile("(\\S+)=(\\S+)").matcher(line);
            while (m.find()) {
                values.put(m.group(1), m.group(2));
            }
            return values;
        }

        public long resultLong(String key) {
            return Long.parseLong(result().get(key));
        }

        public List<String> lines(String containing) {
            return output.lines().filter(l -> l.contains(containing)).collect(Collectors.toList());
        }
    }

    private Jvm() {}

    /**
     * {@code java} and the options every child JVM of these tests starts with: the client compiler
     * only and the serial collector. The children are short-lived (a crash point, a CLI command, an
     * ingest of a few hundred commits), and on a 2-core machine the server compiler's and a parallel
     * collector's threads take the cores from the processes under test.
     */
    /** The jars of {@code folder}, absolute paths, sorted by name. */
    static List<String> jars(Path folder) throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> f.toString().endsWith(".jar"))
                    .map(f -> f.toAbsolutePath().toString())
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    static List<String> java() {
        return List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC");
    }

    /** Runs {@code java <jvmArgs> -cp <classPath> <main> <args>} and waits for it. */
    public static Run run(Path logFile, List<String> jvmArgs, String classPath, String main, String... args)
            throws IOException, InterruptedException {
        return run(5, logFile, jvmArgs, classPath, main, args);
    }

    /** {@link #run} with a time bound in minutes. */
    public static Run run(
            int minutes, Path logFile, List<String> jvmArgs, String classPath, String main, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.addAll(Jvm.java());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classPath);
        command.add(main);
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .start();
        if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("child JVM did not finish in " + minutes + " minutes: " + command + "\n"
                    + Files.readString(logFile));
        }
        return new Run(process.exitValue(), Files.readString(logFile, StandardCharsets.UTF_8));
    }

    public static String agentArg(Path config) {
        return "-javaagent:" + AGENT_JAR + (config == null ? "" : "=" + config.toAbsolutePath());
    }
}
