package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one jar a user attaches: what it declares, what it carries, and that its shading works. */
class AgentJarIT {
    @TempDir
    Path dir;

    @Test
    void manifestDeclaresBothEntryPointsAndRetransformation() throws Exception {
        try (JarFile jar = new JarFile(Jvm.AGENT_JAR.toFile())) {
            Manifest manifest = jar.getManifest();
            assertThat(manifest.getMainAttributes().getValue("Premain-Class"))
                    .isEqualTo("dev.floe.agent.boot.AgentBoot");
            assertThat(manifest.getMainAttributes().getValue("Agent-Class")).isEqualTo("dev.floe.agent.boot.AgentBoot");
            assertThat(manifest.getMainAttributes().getValue("Main-Class")).isEqualTo("dev.floe.agent.boot.AgentBoot");
            assertThat(manifest.getMainAttributes().getValue("Can-Retransform-Classes"))
                    .isEqualTo("true");
        }
    }

    @Test
    void showsTheSystemClassLoaderOnlyItsBootClassesAndHidesTheRest() throws Exception {
        List<String> classes;
        try (JarFile jar = new JarFile(Jvm.AGENT_JAR.toFile())) {
            classes = jar.stream()
                    .map(e -> e.getName())
                    .filter(n -> n.endsWith(".class"))
                    .collect(Collectors.toList());
        }
        // what the system class loader (which the JVM gives an agent jar) can load: the boot classes only
        assertThat(classes.stream().filter(n -> !n.startsWith("floe/")))
                .containsExactlyInAnyOrder(
                        "dev/floe/agent/boot/AgentBoot.class", "dev/floe/agent/boot/IsolatingLoader.class");
        List<String> hidden = classes.stream()
                .filter(n -> n.startsWith("floe/"))
                .map(n -> n.substring("floe/".length()))
                .collect(Collectors.toList());
        assertThat(hidden)
                .contains(
                        "dev/floe/agent/FloeAgent.class",
                        "dev/floe/bootstrap/FloeBridge.class",
                        "dev/floe/runtime/rebuild/Compactor.class",
                        "dev/floe/catalog/MapDbCatalog.class");
        assertThat(hidden).anyMatch(n -> n.startsWith("dev/floe/shaded/net/bytebuddy/"));
        assertThat(hidden).anyMatch(n -> n.startsWith("dev/floe/shaded/kotlin/"));
        assertThat(hidden).anyMatch(n -> n.startsWith("org/mapdb/"));
        assertThat(classes)
                .noneMatch(n -> n.contains("org/apache/iceberg/")
                        || n.contains("org/apache/parquet/")
                        || n.contains("org/apache/hadoop/")
                        || n.contains("org/slf4j/"));
        assertThat(hidden)
                .as(
                        "every class is floe's own, MapDB (whose class names are part of its file format), or relocated under dev/floe/shaded")
                .allMatch(n -> n.startsWith("dev/floe/agent/")
                        || n.startsWith("dev/floe/runtime/")
                        || n.startsWith("dev/floe/bootstrap/")
                        || n.startsWith("dev/floe/catalog/")
                        || n.startsWith("dev/floe/shaded/")
                        || n.startsWith("org/mapdb/"));
    }

    @Test
    void catalogAdapterJarDropsIntoAHostWithMapDb() throws Exception {
        // a host with Iceberg (which brings Caffeine) adds floe-catalog-adapter.jar and MapDB with its own
        // dependencies, nothing else of floe
        Path lib = Jvm.SAMPLES_JAR.getParent().resolve("lib");
        List<String> host = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("floe-")
                        && !entry.contains("/agent/target/")
                        && !entry.contains("/catalog-adapter/")
                        && !entry.contains("/runtime/target")
                        && !entry.contains("mapdb")
                        && !entry.contains("kotlin")
                        && !entry.contains("eclipse-collections")
                        && !entry.contains("elsa")
                        && !entry.contains("lz4")
                        && !entry.contains("byte-buddy")
                        && !entry.contains("/samples/")
                        && !entry.contains("HdrHistogram"))
                .collect(Collectors.toCollection(ArrayList::new));
        Path adapter;
        try (var files = java.nio.file.Files.list(lib)) {
            List<Path> jars = files.sorted().collect(Collectors.toList());
            adapter = jars.stream()
                    .filter(j -> j.getFileName().toString().startsWith("floe-catalog-adapter-"))
                    .findFirst()
                    .orElseThrow();
            host.add(adapter.toString());
            jars.stream()
                    .filter(j -> j.getFileName()
                            .toString()
                            .matches("(mapdb|kotlin-stdlib|eclipse-collections|elsa|lz4|guava|failureaccess).*\\.jar"))
                    .forEach(j -> host.add(j.toString()));
        }
        host.add(Path.of("target", "test-classes").toAbsolutePath().toString());
        Jvm.Run run = Jvm.run(
                dir.resolve("probe.log"),
                List.of(),
                String.join(File.pathSeparator, host),
                ShadedCatalogProbe.class.getName(),
                dir.resolve("warehouse").toString());

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output())
                .contains("catalog from " + adapter.toUri().getPath())
                .contains("snapshots=2");
        // the test-only crash points ship in the agent, not in the jar every host carries
        try (JarFile jar = new JarFile(adapter.toFile())) {
            assertThat(jar.stream().map(java.util.jar.JarEntry::getName))
                    .noneMatch(name -> name.contains("CrashPoint"));
        }
    }
}
