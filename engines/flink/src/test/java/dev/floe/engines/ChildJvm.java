package dev.floe.engines;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** An engine's job in a real separate JVM, with or without the agent, and what it printed. */
final class ChildJvm {
    /** The agent jar the agent module built, as {@code Jvm.AGENT_JAR} finds it there. */
    static final Path AGENT_JAR = Path.of("..", "..", "agent", "target", "floe-agent.jar")
            .toAbsolutePath()
            .normalize();

    /** What Flink's own scripts give a Java 17 JVM ({@code env.java.opts.all} of its config.yaml). */
    static final List<String> FLINK_JAVA17_FLAGS = List.of(
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    record Run(int exitCode, String output, Path log) {
        /** The key=value pairs of the last RESULT line. */
        Map<String, String> result() {
            String line = output.lines()
                    .filter(l -> l.startsWith("RESULT "))
                    .reduce((a, b) -> b)
                    .orElseThrow(() -> new AssertionError("no RESULT line\n" + describe()));
            Map<String, String> values = new LinkedHashMap<>();
            Matcher m = Pattern.compile("(\\S+)=(\\S+)").matcher(line);
            while (m.find()) {
                values.put(m.group(1), m.group(2));
            }
            return values;
        }

        long resultLong(String key) {
            return Long.parseLong(result().get(key));
        }

        List<String> lines(String containing) {
            return output.lines().filter(l -> l.contains(containing)).collect(Collectors.toList());
        }

        /** For an assertion's message: where the whole log is, its RESULT line and its last lines. */
        String describe() {
            List<String> all = output.lines().collect(Collectors.toList());
            int from = Math.max(0, all.size() - 120);
            return "child JVM exit code " + exitCode + ", whole log: " + log + "\n"
                    + all.stream().filter(l -> l.startsWith("RESULT ")).collect(Collectors.joining("\n"))
                    + "\n--- last " + (all.size() - from) + " of " + all.size() + " lines ---\n"
                    + String.join("\n", all.subList(from, all.size()));
        }
    }

    private ChildJvm() {}

    /**
     * This JVM's class path less the agent module's own entries (the test depends on floe-agent only
     * to be built after it): a host has the agent on {@code -javaagent:}, never on its class path.
     */
    static String hostClassPath() {
        Path agentModule = AGENT_JAR.getParent().getParent();
        return List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
                .filter(entry -> !entry.isBlank())
                .filter(entry -> {
                    Path p = Path.of(entry).toAbsolutePath().normalize();
                    return !p.startsWith(agentModule)
                            && !p.getFileName().toString().startsWith("floe-agent");
                })
                .collect(Collectors.joining(File.pathSeparator));
    }

    /** Runs {@code java <jvmArgs> -cp <host class path> <main> <args>}, waiting at most {@code minutes}. */
    static Run run(int minutes, Path log, List<String> jvmArgs, String main, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(hostClassPath());
        command.add(main);
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            Run partial = new Run(-1, Files.readString(log, StandardCharsets.UTF_8), log);
            throw new AssertionError("child JVM did not finish in " + minutes + " minutes\n" + partial.describe());
        }
        return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8), log);
    }

    static String agentArg(Path config) {
        return "-javaagent:" + AGENT_JAR + "=" + config.toAbsolutePath();
    }
}
