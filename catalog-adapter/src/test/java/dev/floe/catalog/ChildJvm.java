package dev.floe.catalog;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real second JVM running one of the test mains, with the test class path. Its standard output is
 * collected line by line; its standard error goes to a file that failures quote.
 */
final class ChildJvm implements AutoCloseable {
    private static final String EOF = "\u0000eof";

    private final Process process;
    private final Path stderr;
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private final LinkedBlockingQueue<String> pending = new LinkedBlockingQueue<>();
    private final Thread reader;

    private ChildJvm(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.reader = new Thread(this::readStdout, "child-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    static ChildJvm start(Path logDir, Class<?> main, String... args) throws IOException {
        return start(logDir, List.of(), main, args);
    }

    /** Starts {@code main} with {@code jvmArgs} (system properties, for example) before its name. */
    static ChildJvm start(Path logDir, List<String> jvmArgs, Class<?> main, String... args) throws IOException {
        Files.createDirectories(logDir);
        Path stderr = Files.createTempFile(logDir, main.getSimpleName() + "-", ".stderr");
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.addAll(jvmArgs);
        command.add(main.getName());
        Collections.addAll(command, args);
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.to(stderr.toFile()))
                .start();
        return new ChildJvm(process, stderr);
    }

    private void readStdout() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
                pending.add(line);
            }
        } catch (IOException e) {
            // the child is gone; what it printed so far is all there is
        } finally {
            pending.add(EOF);
        }
    }

    /** Waits for the next line of output that {@code matches}, skipping others. */
    String awaitLine(Predicate<String> matches, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left > 0 ? pending.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                throw new AssertionError(
                        "child " + process.pid() + " printed no matching line within " + timeout + describe());
            }
            if (line == EOF) {
                pending.add(EOF);
                throw new AssertionError("child " + process.pid() + " ended without a matching line" + describe());
            }
            if (matches.test(line)) {
                return line;
            }
        }
    }

    /** Kills the child at once (SIGKILL) and waits until it is gone and its output is read. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        reader.join(10_000);
    }

    /** Waits for the child to end by itself; its exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
            throw new AssertionError("child " + process.pid() + " did not end within " + timeout + describe());
        }
        reader.join(10_000);
        return process.exitValue();
    }

    /** Every line the child printed so far. */
    List<String> lines() {
        synchronized (lines) {
            return new ArrayList<>(lines);
        }
    }

    /** What the child wrote to its standard error so far. */
    String errorOutput() {
        try {
            return Files.readString(stderr);
        } catch (IOException e) {
            return "(cannot read " + stderr + ")";
        }
    }

    String describe() {
        String err;
        try {
            err = Files.readString(stderr);
        } catch (IOException e) {
            err = "(cannot read " + stderr + ")";
        }
        return "\n--- stdout ---\n" + String.join("\n", lines()) + "\n--- stderr ---\n" + err;
    }

    /** The child's process id. */
    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
