package dev.floe.samples;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One program of this repository run as a separate JVM, with or without the floe agent: its output
 * copied line by line to a log file, its RESULT line and floe's rebuild lines noted, its end
 * awaited within a bound. Standard output and standard error are read apart, a whole line at a
 * time, so a line the agent writes to standard error never lands inside a RESULT line.
 */
public final class ChildJvm {
    /** What floe logs when it has rebuilt a table. */
    public static final String REBUILT_MARKER = "floe: rebuilt";

    private static final int TAIL_LINES = 30;

    private final String main;
    private final List<String> args;
    private final List<String> jvmArgs = new ArrayList<>();
    private String classPath = System.getProperty("java.class.path");
    private Path directory;
    private Duration bound = Duration.ofHours(2);
    private Consumer<String> onLine = line -> {};

    /** {@code java <jvm options> -cp <class path> main args...}; by default on this JVM's class path. */
    public ChildJvm(String main, List<String> args) {
        this.main = main;
        this.args = List.copyOf(args);
    }

    public ChildJvm jvm(List<String> options) {
        jvmArgs.addAll(options);
        return this;
    }

    public ChildJvm classPath(String classPath) {
        this.classPath = classPath;
        return this;
    }

    /** The working directory of the child (default: ours). */
    public ChildJvm directory(Path directory) {
        this.directory = directory;
        return this;
    }

    /** How long to wait for the child before killing it (default 2 hours). */
    public ChildJvm bound(Duration bound) {
        this.bound = bound;
        return this;
    }

    /** Called with every line the child prints, as it prints it, RESULT line included. */
    public ChildJvm onLine(Consumer<String> onLine) {
        this.onLine = onLine;
        return this;
    }

    /** {@code -javaagent:<jar>=<config>}. */
    public static String agentArg(Path jar, Path config) {
        return "-javaagent:" + jar + (config == null ? "" : "=" + config);
    }

    /** A class path for children: the jar {@code code} came from (its manifest names lib/), else ours. */
    public static String classPathOf(Class<?> code) {
        try {
            Path location = Paths.get(
                    code.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isRegularFile(location) && location.toString().endsWith(".jar")) {
                return location.toString();
            }
        } catch (URISyntaxException | RuntimeException e) {
            // use our own class path
        }
        return System.getProperty("java.class.path");
    }

    /** Runs the child, its output to {@code log} (after a first line {@code # <command>}), and waits. */
    public Run run(Path log) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classPath);
        command.add(main);
        command.addAll(args);
        Run run = new Run(log);
        long start = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder(command);
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        Process process = builder.start();
        process.getOutputStream().close();
        try (BufferedWriter writer = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            writer.write("# " + String.join(" ", command));
            writer.newLine();
            Thread out = pump(run, process.getInputStream(), writer, "stdout");
            Thread err = pump(run, process.getErrorStream(), writer, "stderr");
            if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                run.note("killed: " + main + " did not finish in " + bound);
            }
            run.exitCode = process.waitFor();
            out.join();
            err.join();
        }
        run.seconds = (System.nanoTime() - start) / 1e9;
        return run;
    }

    private Thread pump(Run run, InputStream stream, BufferedWriter writer, String name) {
        Thread thread = new Thread(
                () -> {
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            run.consume(line, writer);
                            onLine.accept(line);
                        }
                    } catch (IOException e) {
                        run.note("cannot read the child's " + name + ": " + e.getMessage());
                    }
                },
                main + "-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** What a child did: its exit code, RESULT line, floe's rebuild lines and its last lines. */
    public static final class Run {
        private final Path log;
        private final List<String> rebuildLines = new ArrayList<>();
        private final Deque<String> tail = new ArrayDeque<>();
        private Map<String, String> result;
        private int exitCode = -1;
        private double seconds;

        private Run(Path log) {
            this.log = log;
        }

        private synchronized void consume(String line, BufferedWriter writer) throws IOException {
            writer.write(line);
            writer.newLine();
            writer.flush();
            Map<String, String> parsed = ResultLine.parse(line);
            if (parsed != null) {
                result = parsed;
                return;
            }
            if (line.contains(REBUILT_MARKER)) {
                rebuildLines.add(line);
            }
            note(line);
        }

        private synchronized void note(String line) {
            tail.addLast(line);
            if (tail.size() > TAIL_LINES) {
                tail.removeFirst();
            }
        }

        public Path log() {
            return log;
        }

        public int exitCode() {
            return exitCode;
        }

        public double seconds() {
            return seconds;
        }

        /** The last RESULT line's pairs; null if it printed none. */
        public synchronized Map<String, String> result() {
            return result;
        }

        /** floe's {@value #REBUILT_MARKER} lines, in order. */
        public synchronized List<String> rebuildLines() {
            return List.copyOf(rebuildLines);
        }

        /** The RESULT pairs of a child that succeeded; else an exception that says what went wrong. */
        public Map<String, String> requireResult(String name) {
            if (exitCode != 0 || result() == null) {
                throw new IllegalStateException(name + " failed (exit " + exitCode
                        + (result() == null ? ", no RESULT line" : "") + "): " + lastError() + " (log " + log + ")");
            }
            return result();
        }

        /** The last line that speaks of an error, else the last line. */
        public synchronized String lastError() {
            String found = null;
            for (String line : tail) {
                if (line.contains("error") || line.contains("Exception")) {
                    found = line;
                }
            }
            return found != null ? found : tail.isEmpty() ? "no output, see " + log : tail.getLast();
        }

        /** Everything the child printed, as logged (without the command line). */
        public String output() throws IOException {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            int newline = text.indexOf('\n');
            return newline < 0 ? "" : text.substring(newline + 1);
        }
    }
}
