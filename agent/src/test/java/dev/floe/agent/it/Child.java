package dev.floe.agent.it;

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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child process the test runs beside others: its output (stdout and stderr) goes line by line to
 * a log file and to the test, which waits for what the child says instead of sleeping. Closing it
 * kills the process if it still runs: put it in try-with-resources, so no child outlives its test.
 */
final class Child implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Thread pump;
    private final List<String> lines = new ArrayList<>(); // guarded by this
    private boolean ended; // guarded by this: the output is closed

    private Child(String name, Process process, Path log) throws IOException {
        this.name = name;
        this.process = process;
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
        List<String> command = new ArrayList<>();
        command.addAll(Jvm.java());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classPath);
        command.add(main);
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .start();
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
                        + " it was waited for; its output:\n" + String.join("\n", lines));
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** How many lines printed so far match {@code test}. */
    synchronized int count(Predicate<String> test) {
        return (int) lines.stream().filter(test).count();
    }

    /** Waits for the child to end (failing after {@code bound}) and returns its exit code and output. */
    Jvm.Run await(Duration bound) throws InterruptedException {
        if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not end within " + bound + "; its output:\n" + output());
        }
        pump.join(bound.toMillis());
        return new Jvm.Run(process.exitValue(), output());
    }

    synchronized String output() {
        return String.join("\n", lines) + "\n";
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
