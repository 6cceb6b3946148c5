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
  @TempDir Path dir;

  @Test
  void manifestDeclaresBothEntryPointsAndRetransformation() throws Exception {
    try (JarFile jar = new JarFile(Jvm.AGENT_JAR.toFile())) {
      Manifest manifest = jar.getManifest();
      assertThat(manifest.getMainAttributes().getValue("Premain-Class")).isEqualTo("dev.floe.agent.FloeAgent");
      assertThat(manifest.getMainAttributes().getValue("Agent-Class")).isEqualTo("dev.floe.agent.FloeAgent");
      assertThat(manifest.getMainAttributes().getValue("Can-Retransform-Classes")).isEqualTo("true");
    }
  }

  @Test
  void carriesFloeAndRelocatedDependenciesOnly() throws Exception {
    List<String> classes;
    try (JarFile jar = new JarFile(Jvm.AGENT_JAR.toFile())) {
      classes = jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class")).collect(Collectors.toList());
    }
    assertThat(classes).contains(
        "dev/floe/agent/FloeAgent.class",
        "dev/floe/runtime/Compactor.class",
        "dev/floe/catalog/MapDbCatalog.class");
    assertThat(classes).anyMatch(n -> n.startsWith("dev/floe/shaded/net/bytebuddy/"));
    assertThat(classes).anyMatch(n -> n.startsWith("dev/floe/shaded/kotlin/"));
    assertThat(classes).anyMatch(n -> n.startsWith("org/mapdb/"));
    assertThat(classes).noneMatch(n -> n.startsWith("org/apache/iceberg/"));
    assertThat(classes).noneMatch(n -> n.startsWith("org/apache/parquet/"));
    assertThat(classes).noneMatch(n -> n.startsWith("org/apache/hadoop/"));
    assertThat(classes)
        .as("every class is floe's own, MapDB (whose class names are part of its file format), or relocated under dev/floe/shaded")
        .allMatch(n -> n.startsWith("dev/floe/agent/") || n.startsWith("dev/floe/runtime/")
            || n.startsWith("dev/floe/catalog/") || n.startsWith("dev/floe/shaded/") || n.startsWith("org/mapdb/"));
  }

  @Test
  void bundledCatalogRunsOnItsOwnMapDb() throws Exception {
    // a host with Iceberg but no MapDB or floe of its own: the agent jar's catalog, on its MapDB and its
    // relocated Kotlin and collections, must work alone
    List<String> hostOnly =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.contains("floe-") && !entry.contains("/catalog-adapter/") && !entry.contains("/runtime/target")
                && !entry.contains("mapdb") && !entry.contains("kotlin") && !entry.contains("eclipse-collections")
                && !entry.contains("byte-buddy") && !entry.contains("/samples/") && !entry.contains("HdrHistogram"))
            .collect(Collectors.toCollection(ArrayList::new));
    hostOnly.add(0, Jvm.AGENT_JAR.toString());
    Jvm.Run run =
        Jvm.run(dir.resolve("probe.log"), List.of(), String.join(File.pathSeparator, hostOnly),
            ShadedCatalogProbe.class.getName(), dir.resolve("warehouse").toString());

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).contains("catalog from " + Jvm.AGENT_JAR.toUri().getPath()).contains("org.mapdb from " + Jvm.AGENT_JAR.toUri().getPath()).contains("snapshots=2");
  }
}
