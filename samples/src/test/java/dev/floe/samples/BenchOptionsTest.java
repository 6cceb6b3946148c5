package dev.floe.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample ingest's benchmark options and the benchmark's own plumbing, each in a real, separate
 * JVM. The benchmark itself never runs here: these check only that what it relies on works.
 */
class BenchOptionsTest {
  @TempDir Path dir;

  @Test
  void maintainedModeExpiresSnapshotsAndKeepsFewMetadataFiles() throws Exception {
    Child child =
        run(
            List.of("-Dingest.mode=maintained", "-Dingest.expire-every=12"),
            Ingest.class.getName(), catalogProperties().toString(), "test.events", "24", "3", "1");

    assertThat(child.exitCode).as(child.output).isZero();
    Map<String, String> result = child.result();
    assertThat(result).containsEntry("mode", "maintained").containsEntry("rows", "72");
    // expired after commits 12 and 24, keeping the last 10 each time
    assertThat(result).containsEntry("snapshots", Integer.toString(Ingest.RETAIN_LAST));
    assertThat(result).containsEntry("dataFiles", "24").containsEntry("historyCollapses", "0");
    assertThat(Long.parseLong(result.get("maintenanceMs"))).isPositive();
    // write.metadata.previous-versions-max=10: the current metadata file and at most 10 before it
    try (Stream<Path> files = Files.walk(dir.resolve("warehouse"))) {
      assertThat(files.filter(p -> p.toString().endsWith(".metadata.json")).count())
          .isBetween(1L, (long) Ingest.RETAIN_LAST + 1);
    }
  }

  @Test
  void seriesCsvHasOneRowPerCommitAndTheResultTheNewFigures() throws Exception {
    Path series = dir.resolve("out/series.csv");
    Child child =
        run(
            List.of("-Dingest.series-csv=" + series, "-Dingest.series-every=4"),
            Ingest.class.getName(), catalogProperties().toString(), "test.events", "8", "2", "1");

    assertThat(child.exitCode).as(child.output).isZero();
    List<String> lines = Files.readAllLines(series);
    assertThat(lines).hasSize(9);
    assertThat(lines.get(0)).isEqualTo("commit,endEpochMs,latencyMs,expireMs,snapshots,metadataBytes");
    List<double[]> rows = Bench.readSeries(series);
    assertThat(rows).hasSize(8);
    for (double[] row : rows) {
      boolean sampled = row[0] % 4 == 0;
      assertThat(row[5] > 0).as("metadataBytes of commit %s", row[0]).isEqualTo(sampled);
      assertThat(row[4]).isEqualTo(row[0]); // one snapshot per commit
      assertThat(row[2]).isPositive();
    }
    Map<String, String> result = child.result();
    assertThat(result).containsEntry("mode", "fast").containsEntry("firstCollapseAt", "0");
    for (String key :
        List.of("scanMs", "peakHeapBytes", "liveMetadataBytes", "firstP99Ms", "lastP99Ms")) {
      assertThat(Double.parseDouble(result.get(key))).as(key).isPositive();
    }
    assertThat(Long.parseLong(result.get("liveMetadataBytes")))
        .isLessThanOrEqualTo(Long.parseLong(result.get("metadataBytes")));
  }

  @Test
  void stopAfterCollapseStopsThatManyCommitsAfterTheFloeRebuild() throws Exception {
    Path agent = repo().resolve("agent/target/floe-agent.jar");
    assumeTrue(Files.isRegularFile(agent), "needs the agent jar: " + agent);
    Path config = dir.resolve("floe.properties");
    Files.writeString(config, "floe.trigger.snapshots=8\nfloe.reclaim.grace=1s\n");

    Child child =
        run(
            List.of("-javaagent:" + agent + "=" + config, "-Dingest.stop-after-collapse=3"),
            Ingest.class.getName(), catalogProperties().toString(), "test.events", "3000", "2", "1");

    assertThat(child.exitCode).as(child.output).isZero();
    Map<String, String> result = child.result();
    int collapsedAt = Integer.parseInt(result.get("firstCollapseAt"));
    assertThat(collapsedAt).as(child.output).isGreaterThan(8);
    assertThat(result).containsEntry("commits", Integer.toString(collapsedAt + 3));
    assertThat(Integer.parseInt(result.get("historyCollapses"))).isPositive();
    assertThat(result.get("rows")).isEqualTo(Integer.toString((collapsedAt + 3) * 2));
    assertThat(result.get("distinctIds")).isEqualTo(result.get("rows"));
  }

  @Test
  void benchDrawsItsChartFromSeriesFiles() throws Exception {
    Path out = Files.createDirectories(dir.resolve("bench"));
    for (String mode : Bench.MODES) {
      List<String> lines = new ArrayList<>();
      lines.add("commit,endEpochMs,latencyMs,expireMs,snapshots,metadataBytes");
      for (int i = 1; i <= 120; i++) {
        lines.add(i + "," + (1_000_000L + i) + "," + (1.0 + i / 10.0) + ",0,"
            + i + "," + (i % 20 == 0 ? Long.toString(1000L * i) : ""));
      }
      Files.write(out.resolve("series-" + mode + ".csv"), lines);
    }

    Child child = run(List.of(), Bench.class.getName(), "--chart-only", "--out", out.toString(),
        "--repo", repo().toString());

    assertThat(child.exitCode).as(child.output).isZero();
    String svg = Files.readString(out.resolve("chart.svg"));
    assertThat(svg).startsWith("<svg").contains("floe-guarded newFastAppend", "Iceberg maintenance");
    // two panels, a line per mode in each
    assertThat(svg.split("stroke-width=\"1.8\"").length - 1).isEqualTo(2 * 3);
  }

  @Test
  void badOptionsFailWithOneLine() throws Exception {
    Child ingest = run(List.of("-Dingest.mode=slow"), Ingest.class.getName(),
        catalogProperties().toString(), "a.b", "1", "1", "1");
    assertThat(ingest.exitCode).isEqualTo(2);
    assertThat(ingest.output.strip()).contains("ingest.mode").doesNotContain("\n");

    Child bench = run(List.of(), Bench.class.getName(), "--only", "nothing");
    assertThat(bench.exitCode).isEqualTo(2);
    assertThat(bench.output.strip()).contains("unknown part").doesNotContain("\n");

    Child help = run(List.of(), RebuildBench.class.getName(), "--help");
    assertThat(help.exitCode).isZero();
    assertThat(help.output).contains("usage:", "parquet-java");
  }

  // ---------------------------------------------------------------------------------------------

  private Path catalogProperties() throws IOException {
    Path properties = dir.resolve("catalog.properties");
    Files.writeString(
        properties,
        String.join(
            "\n",
            "catalog-impl=dev.floe.catalog.MapDbCatalog",
            "warehouse=" + dir.resolve("warehouse"),
            "uri=" + dir.resolve("catalog.db"),
            ""));
    return properties;
  }

  /** The repository root: the samples module's parent (surefire runs in the module directory). */
  private static Path repo() {
    Path module = Paths.get("").toAbsolutePath();
    return Files.isRegularFile(module.resolve("catalog.properties")) ? module.getParent() : module;
  }

  private Child run(List<String> jvmOptions, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.addAll(List.of(args));
    Path output = Files.createTempFile(dir, "child", ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    process.getOutputStream().close();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError("child did not finish in 5 minutes: " + Files.readString(output));
    }
    return new Child(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
  }

  private static final class Child {
    final int exitCode;
    final String output;

    Child(int exitCode, String output) {
      this.exitCode = exitCode;
      this.output = output;
    }

    Map<String, String> result() {
      return output.lines()
          .map(Demo::parseResult)
          .filter(r -> r != null)
          .reduce((first, second) -> second)
          .orElse(null);
    }
  }

  @Test
  void phasesOfARebuildLineKeepTheirHyphenatedNamesInOrder() {
    String line =
        "floe: rebuilt db.events: 200 snapshots -> 1, attempts 1, scratch=27ms stream=1485ms catch-up=156ms"
            + " gate-wait=10ms commit=50ms swap=29ms, reclaim job db.events__c1 retires the old table's files";

    assertThat(RebuildBench.phases(line))
        .containsExactly(
            Map.entry("scratch", 27L), Map.entry("stream", 1485L), Map.entry("catch-up", 156L),
            Map.entry("gate-wait", 10L), Map.entry("commit", 50L), Map.entry("swap", 29L));
  }
}
