package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input the host brings along: one clear message, the host keeps running, nothing lost. */
class BadInputIT {
    @TempDir
    Path dir;

    private static String testHostClassPath() {
        // the prune classes implement dev.floe.runtime.Prune: the host carries floe-runtime for them
        return Path.of("target", "test-classes").toAbsolutePath()
                + File.pathSeparator
                + Jvm.SAMPLES_JAR
                + File.pathSeparator
                + Jvm.RUNTIME_CLASSES;
    }

    @Test
    void pruneThatThrowsFailsTheRebuildOnceAndLosesNothing() throws Exception {
        Path config = dir.resolve("floe.properties");
        Files.writeString(
                config,
                "floe.trigger.snapshots=10\nfloe.trigger.min-interval=10m\n" + "floe.rebuild.prune-class="
                        + ThrowingPrune.class.getName() + "\n");

        Jvm.Run run = Jvm.run(
                dir.resolve("host.log"),
                List.of(Jvm.agentArg(config)),
                testHostClassPath(),
                CrashHost.class.getName(),
                CrashCatalog.MAPDB.argument(),
                dir.toString(),
                "40",
                "3",
                "-1");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("ERROR"))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("failed rebuilding db.events")
                .contains(ThrowingPrune.class.getName())
                .contains("archive lookup failed for row 5");
        assertThat(run.lines("acked ")).hasSize(40);
        assertThat(run.lines("floe: rebuilt")).isEmpty();
    }

    @Test
    void hostOnIceberg111IsGuarded() throws Exception {
        List<String> classPath = new ArrayList<>(jars(Path.of("target", "iceberg-1.11.0")));
        Path lib = Jvm.SAMPLES_JAR.getParent().resolve("lib");
        jars(lib).stream()
                .filter(j -> !Path.of(j).getFileName().toString().startsWith("iceberg-"))
                .forEach(classPath::add);
        classPath.add(Jvm.SAMPLES_JAR.getParent().resolve("classes").toString());
        Path catalog = dir.resolve("catalog.properties");
        Files.writeString(
                catalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + dir.resolve("warehouse") + "\n");
        Path config = dir.resolve("floe.properties");
        Files.writeString(config, "floe.trigger.snapshots=20\nfloe.trigger.min-interval=1s\n");

        Jvm.Run run = Jvm.run(
                dir.resolve("ingest.log"),
                List.of(Jvm.agentArg(config)),
                String.join(File.pathSeparator, classPath),
                "dev.floe.samples.Ingest",
                catalog.toString(),
                "db.events",
                "60",
                "4",
                "1");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("[floe] INFO floe "))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("guards Iceberg 1.11.0");
        assertThat(run.lines(
                        "[floe] INFO guarding Iceberg 1.11.0 in the system class loader: instrumented 9 of 9 types"))
                .as(run.output())
                .hasSize(1);
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        assertThat(run.resultLong("rows")).isEqualTo(240);
        assertThat(run.resultLong("distinctIds")).isEqualTo(240);
    }

    @Test
    void hostOnAnOlderIcebergRunsAndFloeStepsAsideWithOneWarning() throws Exception {
        Path classes = dir.resolve("classes");
        Path source = dir.resolve("OldHost.java");
        Files.writeString(
                source,
                "public class OldHost { public static void main(String[] a) {"
                        + " System.out.println(\"old host ran: \" + org.apache.iceberg.catalog.TableIdentifier.of(\"db\", \"t\")); } }");
        List<String> iceberg16 = jars(Path.of("target", "iceberg-1.6.1"));
        Process javac = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                        "-cp",
                        String.join(File.pathSeparator, iceberg16),
                        "-d",
                        classes.toString(),
                        source.toString())
                .inheritIO()
                .start();
        assertThat(javac.waitFor()).isZero();
        List<String> classPath = new ArrayList<>(iceberg16);
        classPath.add(classes.toString());

        Jvm.Run run = Jvm.run(
                dir.resolve("old.log"),
                List.of(Jvm.agentArg(null)),
                String.join(File.pathSeparator, classPath),
                "OldHost");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("old host ran: db.t");
        assertThat(run.lines("[floe]"))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("WARN")
                .contains("supports Iceberg 1.10 to 1.11")
                .contains("1.6.1");
    }

    private static List<String> jars(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> f.toString().endsWith(".jar"))
                    .map(f -> f.toAbsolutePath().toString())
                    .sorted()
                    .collect(Collectors.toList());
        }
    }
}
