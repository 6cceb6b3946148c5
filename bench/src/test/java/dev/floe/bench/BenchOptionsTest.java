package dev.floe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.samples.ChildJvm;
import dev.floe.samples.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmarks' host options and the benchmark's own plumbing, each in a real, separate JVM. The benchmark itself never runs here: these check only that what it relies on works.
 */
class BenchOptionsTest {
    @TempDir
    Path dir;

    @Test
    void maintainedModeExpiresSnapshotsAndKeepsFewMetadataFiles() throws Exception {
        ChildJvm.Run child = run(
                List.of("-Dbench.mode=maintained", "-Dbench.expire-every=12"),
                BenchIngest.class.getName(),
                catalogProperties().toString(),
                "test.events",
                "24",
                "3",
                "1");

        assertThat(child.exitCode()).as(child.output()).isZero();
        Map<String, String> result = child.result();
        assertThat(result).containsEntry("mode", "maintained").containsEntry("rows", "72");
        // expired after commits 12 and 24, keeping the last 10 each time
        assertThat(result).containsEntry("snapshots", Integer.toString(BenchIngest.RETAIN_LAST));
        assertThat(result).containsEntry("dataFiles", "24").containsEntry("historyCollapses", "0");
        assertThat(Long.parseLong(result.get("maintenanceMs"))).isPositive();
        // write.metadata.previous-versions-max=10: the current metadata file and at most 10 before it
        try (Stream<Path> files = Files.walk(dir.resolve("warehouse"))) {
            assertThat(files.filter(p -> p.toString().endsWith(".metadata.json"))
                            .count())
                    .isBetween(1L, (long) BenchIngest.RETAIN_LAST + 1);
        }
    }

    @Test
    void seriesCsvHasOneRowPerCommitAndTheResultTheNewFigures() throws Exception {
        Path series = dir.resolve("out/series.csv");
        ChildJvm.Run child = run(
                List.of("-Dbench.series-csv=" + series, "-Dbench.series-every=4"),
                BenchIngest.class.getName(),
                catalogProperties().toString(),
                "test.events",
                "8",
                "2",
                "1");

        assertThat(child.exitCode()).as(child.output()).isZero();
        List<String> lines = Files.readAllLines(series);
        assertThat(lines).hasSize(9);
        assertThat(lines.get(0)).isEqualTo("commit,endEpochMs,latencyMs,expireMs,snapshots,metadataBytes");
        List<double[]> rows = SeriesCsv.read(series);
        assertThat(rows).hasSize(8);
        for (double[] row : rows) {
            boolean sampled = row[0] % 4 == 0;
            assertThat(row[5] > 0).as("metadataBytes of commit %s", row[0]).isEqualTo(sampled);
            assertThat(row[4]).isEqualTo(row[0]); // one snapshot per commit
            assertThat(row[2]).isPositive();
        }
        Map<String, String> result = child.result();
        assertThat(result).containsEntry("mode", "fast").containsEntry("firstCollapseAt", "0");
        for (String key : List.of("scanMs", "peakHeapBytes", "liveMetadataBytes", "firstP99Ms", "lastP99Ms")) {
            assertThat(Double.parseDouble(result.get(key))).as(key).isPositive();
        }
        assertThat(Long.parseLong(result.get("liveMetadataBytes")))
                .isLessThanOrEqualTo(Long.parseLong(result.get("metadataBytes")));
    }

    @Test
    void stopAfterCollapseStopsThatManyCommitsAfterTheFloeRebuild() throws Exception {
        // the agent module comes before this one in the build (this module depends on it), so its jar is there
        Path agent = repo().resolve("agent/target/floe-agent.jar");
        assertThat(agent).as("the agent jar, built before this module").isRegularFile();
        Path config = dir.resolve("floe.properties");
        Files.writeString(config, "floe.trigger.snapshots=8\nfloe.reclaim.grace=1s\n");

        ChildJvm.Run child = run(
                List.of("-javaagent:" + agent + "=" + config, "-Dbench.stop-after-collapse=3"),
                BenchIngest.class.getName(),
                catalogProperties().toString(),
                "test.events",
                "3000",
                "2",
                "1");

        assertThat(child.exitCode()).as(child.output()).isZero();
        Map<String, String> result = child.result();
        int collapsedAt = Integer.parseInt(result.get("firstCollapseAt"));
        assertThat(collapsedAt).as(child.output()).isGreaterThan(8);
        assertThat(result).containsEntry("commits", Integer.toString(collapsedAt + 3));
        assertThat(Integer.parseInt(result.get("rewrites")))
                .as("floe's rebuilds on main")
                .isPositive();
        assertThat(result.get("rows")).isEqualTo(Integer.toString((collapsedAt + 3) * 2));
        assertThat(result.get("distinctIds")).isEqualTo(result.get("rows"));
    }

    @Test
    void theJdbcPartsCatalogIsSqliteAndTheAgentRebuildsItsTableInPlace() throws Exception {
        Path agent = repo().resolve("agent/target/floe-agent.jar");
        assertThat(agent).as("the agent jar, built before this module").isRegularFile();
        Path config = dir.resolve("floe.properties");
        Files.writeString(
                config,
                "floe.tables=test.events\nfloe.trigger.snapshots=8\nfloe.state.file=" + dir.resolve("floe-state.db")
                        + "\n");

        ChildJvm.Run child = run(
                List.of("-javaagent:" + agent + "=" + config, "-Dbench.stop-after-collapse=3"),
                BenchIngest.class.getName(),
                Harness.jdbcCatalogProperties(dir).toString(),
                "test.events",
                "3000",
                "2",
                "1");

        assertThat(child.exitCode()).as(child.output()).isZero();
        assertThat(child.rebuildLines()).as(child.output()).isNotEmpty();
        Map<String, String> result = child.result();
        int collapsedAt = Integer.parseInt(result.get("firstCollapseAt"));
        assertThat(result).containsEntry("commits", Integer.toString(collapsedAt + 3));
        assertThat(result.get("rows")).isEqualTo(Integer.toString((collapsedAt + 3) * 2));
        assertThat(result.get("distinctIds")).isEqualTo(result.get("rows"));
        assertThat(dir.resolve("catalog.sqlite")).isRegularFile();
        assertThat(dir.resolve("floe-state.db")).isRegularFile();
    }

    @Test
    void benchDrawsItsChartFromSeriesFiles() throws Exception {
        Path out = Files.createDirectories(dir.resolve("bench"));
        for (String mode : GrowthBench.MODES) {
            List<String> lines = new ArrayList<>();
            lines.add("commit,endEpochMs,latencyMs,expireMs,snapshots,metadataBytes");
            for (int i = 1; i <= 120; i++) {
                lines.add(i + "," + (1_000_000L + i) + "," + (1.0 + i / 10.0) + ",0," + i + ","
                        + (i % 20 == 0 ? Long.toString(1000L * i) : ""));
            }
            Files.write(out.resolve("series-" + mode + ".csv"), lines);
        }

        ChildJvm.Run child = run(
                List.of(), Bench.class.getName(), "--chart-only", "--out", out.toString(), "--repo", repo().toString());

        assertThat(child.exitCode()).as(child.output()).isZero();
        String svg = Files.readString(out.resolve("chart.svg"));
        assertThat(svg).startsWith("<svg").contains("floe-guarded newFastAppend", "Iceberg maintenance");
        // two panels, a line per mode in each
        assertThat(svg.split("stroke-width=\"1.8\"").length - 1).isEqualTo(2 * 3);
    }

    @Test
    void badOptionsFailWithOneLine() throws Exception {
        ChildJvm.Run ingest = run(
                List.of("-Dbench.mode=slow"),
                BenchIngest.class.getName(),
                catalogProperties().toString(),
                "a.b",
                "1",
                "1",
                "1");
        assertThat(ingest.exitCode()).isEqualTo(2);
        assertThat(ingest.output().strip()).contains("bench.mode").doesNotContain("\n");

        ChildJvm.Run bench = run(List.of(), Bench.class.getName(), "--only", "nothing");
        assertThat(bench.exitCode()).isEqualTo(2);
        assertThat(bench.output().strip()).contains("unknown part").doesNotContain("\n");

        ChildJvm.Run help = run(List.of(), RebuildHost.class.getName(), "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.output()).contains("usage:", "parquet-java");
    }

    // ---------------------------------------------------------------------------------------------

    private static Path repo() {
        return Repo.locate(BenchOptionsTest.class);
    }

    private Path catalogProperties() throws IOException {
        return Harness.catalogProperties(dir);
    }

    /** Runs {@code args[0]} (a main class) with the rest as its arguments, in a JVM of its own. */
    private ChildJvm.Run run(List<String> jvmOptions, String... args) throws Exception {
        return new ChildJvm(args[0], List.of(args).subList(1, args.length))
                .jvm(jvmOptions)
                .bound(Duration.ofMinutes(5))
                .run(Files.createTempFile(dir, "child", ".log"));
    }

    @Test
    void phasesOfARebuildLineKeepTheirHyphenatedNamesInOrder() {
        String line =
                "floe: rebuilt db.events: 200 snapshots -> 1, attempts 1, scratch=27ms stream=1485ms catch-up=156ms"
                        + " gate-wait=10ms commit=50ms swap=29ms, reclaim job db.events__c1 retires the old table's files";

        assertThat(RebuildReport.parse(line).phases())
                .containsExactly(
                        Map.entry("scratch", 27L),
                        Map.entry("stream", 1485L),
                        Map.entry("catch-up", 156L),
                        Map.entry("gate-wait", 10L),
                        Map.entry("commit", 50L),
                        Map.entry("swap", 29L));
    }
}
