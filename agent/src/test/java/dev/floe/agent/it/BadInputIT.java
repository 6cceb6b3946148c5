package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * A supported version number on an Iceberg whose shape floe's advice does not fit (here: one
     * without CachingCatalog, a type floe weaves): one WARN naming the version and what did not
     * match, and the host ingests unguarded, every row there.
     */
    @Test
    void anIcebergFloeCannotWeaveIsLeftUnguardedWithOneWarningNamingItsVersion() throws Exception {
        Path lib = Jvm.SAMPLES_JAR.getParent().resolve("lib");
        List<String> classPath = new ArrayList<>();
        String version = null;
        for (String jar : Jvm.jars(lib)) {
            Path file = Path.of(jar);
            String name = file.getFileName().toString();
            if (name.startsWith("iceberg-core-")) {
                version = name.substring("iceberg-core-".length(), name.length() - ".jar".length());
                Path stripped = dir.resolve(file.getFileName());
                withoutEntry(file, stripped, "org/apache/iceberg/CachingCatalog.class");
                classPath.add(stripped.toString());
            } else {
                classPath.add(jar);
            }
        }
        classPath.add(Jvm.SAMPLES_JAR.getParent().resolve("classes").toString());
        Path catalog = dir.resolve("catalog.properties");
        Files.writeString(
                catalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + dir.resolve("warehouse") + "\n");
        Path config = dir.resolve("floe.properties");
        Files.writeString(config, "floe.trigger.snapshots=5\nfloe.trigger.min-interval=1s\n");

        Jvm.Run run = Jvm.run(
                dir.resolve("ingest.log"),
                List.of(Jvm.agentArg(config)),
                String.join(File.pathSeparator, classPath),
                "dev.floe.samples.Ingest",
                catalog.toString(),
                "db.events",
                "20",
                "3",
                "1");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("[floe] WARN"))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("does not guard the Iceberg " + version + " of the system class loader")
                .contains("org.apache.iceberg.CachingCatalog (not found")
                .contains("its commits go on unguarded");
        assertThat(run.lines("floe: rebuilt")).as(run.output()).isEmpty();
        assertThat(run.resultLong("rows")).isEqualTo(60);
        assertThat(run.resultLong("distinctIds")).isEqualTo(60);
        assertThat(run.resultLong("snapshots"))
                .as("unguarded: every commit's snapshot")
                .isEqualTo(20);
    }

    private static void withoutEntry(Path jar, Path copy, String entry) throws IOException {
        try (java.util.zip.ZipFile in = new java.util.zip.ZipFile(jar.toFile());
                java.util.zip.ZipOutputStream out = new java.util.zip.ZipOutputStream(Files.newOutputStream(copy))) {
            for (java.util.zip.ZipEntry e : java.util.Collections.list(in.entries())) {
                if (!e.getName().equals(entry)) {
                    out.putNextEntry(new java.util.zip.ZipEntry(e.getName()));
                    in.getInputStream(e).transferTo(out);
                    out.closeEntry();
                }
            }
        }
    }

    @Test
    void hostOnAnOlderIcebergRunsAndFloeStepsAsideWithOneWarning() throws Exception {
        Path classes = dir.resolve("classes");
        Path source = dir.resolve("OldHost.java");
        Files.writeString(
                source,
                "public class OldHost { public static void main(String[] a) {"
                        + " System.out.println(\"old host ran: \" + org.apache.iceberg.catalog.TableIdentifier.of(\"db\", \"t\")); } }");
        List<String> iceberg16 = Jvm.jars(Path.of("target", "iceberg-1.6.1"));
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
                .contains("supports Iceberg 1.9 to 1.12")
                .contains("1.6.1");
    }
}
