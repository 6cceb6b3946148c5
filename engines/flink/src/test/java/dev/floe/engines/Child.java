package dev.floe.engines;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A child JVM the test runs beside another, as engines/spark's and the agent module's {@code Child}: its output
 * (stdout and stderr) goes line by line to a log file and to the test, which waits for what the
 * child says instead of sleeping. Closing it kills the process if it still runs: put it in
 * try-with-resources, so no child outlives its test.
 */
final class Child implements AutoCloseable {
    /** What a child printed and how it ended. */
    record Ended(String name, int exitCode, String output, Path log) {
        /** The key=value pairs of its last {@code RESULT} line. */
        Map<String, String> result() {
            String line = output.lines()
                    .filter(l -> l.startsWith("RESULT "))
                    .reduce((a, b) -> b)
                    .orElseThrow(() -> new AssertionError(name + " printed no RESULT line\n" + describe()));
            Map<String, String> values = new LinkedHashMap<>();
            Matcher m = Pattern.compile("(\\S+)=(\\S+)").matcher(line);
            while (m.find()) {
                values.put(m.group(1), m.group(2));
            }
            return values;
        }

        long resultLong(String key) {
            String value = result().get(key);
            if (value == null) {
                throw new AssertionError(name + "'s RESULT line has no " + key + "\n" + describe());
            }
            return Long.parseLong(value);
        }

        List<String> lines(String containing) {
            return output.lines().filter(l -> l.contains(containing)).toList();
        }

        /** For an assertion's message: the child, its exit code, its log and its last lines. */
        String describe() {
            List<String> all = output.lines().toList();
            int from = Math.max(0, all.size() - 80);
            return name + " exit code " + exitCode + ", whole log: " + log + "\n--- last " + (all.size() - from)
                    + " of " + all.size() + " lines ---\n" + String.join("\n", all.subList(from, all.size()));
        }
    }

    private final String name;
    private final Process process;
    private final Path log;
    private final Thread pump;
    private final List<String> lines = new ArrayList<>(); // guarded by this
    private boolean ended; // guarded by this: the output is closed

    private Child(String name, Process process, Path log) throws IOException {
        this.name = name;
        this.process = process;
        this.log = log;
        Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8);
        this.pump = new Thread(
                () -> {
                    try (out;
                            BufferedReader in = new BufferedReader(
                                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            out.write(line);
                            out.write('\n');
                            out.flush();
                            synchronized (this) {
                                lines.add(line);
                                notifyAll();
                            }
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    } finally {
                        synchronized (this) {
                            ended = true;
                            notifyAll();
                        }
                    }
                },
                "output of " + name);
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts {@code java <jvmArgs> -cp <classPath> <main> <args>} in {@code workDir}, its output to {@code log}. */
    static Child java(
            String name, Path log, Path workDir, List<String> jvmArgs, String classPath, String main, String... args)
            throws IOException {
        return java(name, log, workDir, Map.of(), jvmArgs, classPath, main, args);
    }

    /** {@link #java(String, Path, Path, List, String, String, String...)} with {@code env} added to this JVM's environment. */
    static Child java(
            String name,
            Path log,
            Path workDir,
            Map<String, String> env,
            List<String> jvmArgs,
            String classPath,
            String main,
            String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classPath);
        command.add(main);
        command.addAll(List.of(args));
        ProcessBuilder builder =
                new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process = builder.start();
        return new Child(name, process, log);
    }

    /**
     * Waits until the {@code n}th line that matches {@code test} has been printed, and returns it;
     * fails at once if the child ends first, or after {@code bound} (a hang, not a timing).
     */
    synchronized String awaitLine(Predicate<String> test, int n, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            List<String> found = lines.stream().filter(test).toList();
            if (found.size() >= n) {
                return found.get(n - 1);
            }
            long left = deadline - System.nanoTime();
            if (ended || left <= 0) {
                throw new AssertionError(name + (ended ? " ended" : " still runs after " + bound) + " before line #" + n
                        + " it was waited for (log " + log + "); its last lines:\n" + tail());
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** How many lines printed so far match {@code test}. */
    synchronized int count(Predicate<String> test) {
        return (int) lines.stream().filter(test).count();
    }

    /** The lines printed so far that match {@code test}. */
    synchronized List<String> lines(Predicate<String> test) {
        return lines.stream().filter(test).toList();
    }

    /** Waits for the child to end (failing after {@code bound}) and returns its exit code and output. */
    Ended await(Duration bound) throws InterruptedException {
        if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(
                    name + " did not end within " + bound + " (log " + log + "); its last lines:\n" + tail());
        }
        pump.join(bound.toMillis());
        synchronized (this) {
            return new Ended(name, process.exitValue(), String.join("\n", lines) + "\n", log);
        }
    }

    private synchronized String tail() {
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(1, TimeUnit.MINUTES);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
