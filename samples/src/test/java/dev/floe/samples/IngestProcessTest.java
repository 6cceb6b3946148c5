package dev.floe.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Runs the sample ingest as a real, separate JVM and checks what it reports. */
class IngestProcessTest {
    private static final int COMMITS = 50;
    private static final int ROWS_PER_COMMIT = 5;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} thread(s), handle={1}")
    @CsvSource({"1, thread", "3, thread", "3, single"})
    void everyCommittedRowIsReadBackExactlyOnce(int threads, String handleMode) throws Exception {
        Path properties = catalogProperties();

        ChildJvm.Run child = run(
                List.of("-Dingest.handle=" + handleMode),
                Ingest.class.getName(),
                properties.toString(),
                "test.events",
                Integer.toString(COMMITS),
                Integer.toString(ROWS_PER_COMMIT),
                Integer.toString(threads));

        assertThat(child.exitCode()).as(child.output()).isZero();
        Map<String, String> result = child.result();
        assertThat(result).as(child.output()).isNotNull();
        long rows = Long.parseLong(result.get("rows"));
        assertThat(rows).isEqualTo((long) COMMITS * ROWS_PER_COMMIT);
        assertThat(Long.parseLong(result.get("distinctIds"))).isEqualTo(rows);
        assertThat(Long.parseLong(result.get("commits"))).isEqualTo(COMMITS);
        assertThat(Long.parseLong(result.get("snapshots"))).isEqualTo(COMMITS);
        assertThat(Long.parseLong(result.get("dataFiles"))).isEqualTo(COMMITS);
        assertThat(Long.parseLong(result.get("metadataBytes"))).isPositive();
        assertThat(Long.parseLong(result.get("historyCollapses"))).isZero();
        assertThat(result.get("handles")).isEqualTo(handleMode.equals("single") ? "1" : Integer.toString(threads));
        assertThat(Double.parseDouble(result.get("p99Ms")))
                .isGreaterThanOrEqualTo(Double.parseDouble(result.get("p50Ms")))
                .isPositive();
        assertThat(result).containsKeys("firstP50Ms", "lastP50Ms", "elapsedMs");
    }

    @Test
    void aSecondRunContinuesTheIdsOfTheFirst() throws Exception {
        Path properties = catalogProperties();
        String[] args = {Ingest.class.getName(), properties.toString(), "test.events", "10", "3", "1"};

        ChildJvm.Run first = run(List.of(), args);
        ChildJvm.Run second = run(List.of(), args);

        assertThat(first.exitCode()).as(first.output()).isZero();
        assertThat(second.exitCode()).as(second.output()).isZero();
        assertThat(second.result().get("rows")).isEqualTo("60");
        assertThat(second.result().get("distinctIds")).isEqualTo("60");
        assertThat(second.result().get("snapshots")).isEqualTo("20");
    }

    @Test
    void aRunBesideAnotherWriterTakesIdsOfItsOwnAndChecksOnlyThose() throws Exception {
        Path properties = catalogProperties();
        String[] args = {Ingest.class.getName(), properties.toString(), "test.events", "10", "3", "1"};

        ChildJvm.Run other = run(List.of(), args);
        ChildJvm.Run own = run(List.of("-Dingest.first-id=1000000", "-Dingest.verify=own"), args);
        // the default check reads the whole table: the rows there at the start, and the run's own
        ChildJvm.Run strict = run(List.of("-Dingest.first-id=2000000"), args);

        assertThat(other.exitCode()).as(other.output()).isZero();
        assertThat(own.exitCode()).as(own.output()).isZero();
        assertThat(own.result())
                .containsEntry("ownRows", "30")
                .containsEntry("otherRows", "30")
                .containsEntry("rows", "60")
                .containsEntry("distinctIds", "60");
        assertThat(strict.exitCode()).as(strict.output()).isZero();
        assertThat(strict.result()).containsEntry("rows", "90").doesNotContainKey("ownRows");
    }

    @Test
    void aStopFileEndsTheRunBeforeItsNextCommit() throws Exception {
        Path stop = Files.createFile(dir.resolve("stop"));

        ChildJvm.Run child = run(
                List.of("-Dingest.stop-file=" + stop),
                Ingest.class.getName(),
                catalogProperties().toString(),
                "test.events",
                "1000",
                "2",
                "2");

        assertThat(child.exitCode()).as(child.output()).isZero();
        assertThat(child.result()).containsEntry("commits", "0").containsEntry("rows", "0");
    }

    @Test
    void withoutVerificationRowsAreSkipped() throws Exception {
        ChildJvm.Run child = run(
                List.of("-Dingest.verify=false"),
                Ingest.class.getName(),
                catalogProperties().toString(),
                "test.events",
                "5",
                "2",
                "1");

        assertThat(child.exitCode()).as(child.output()).isZero();
        assertThat(child.result()).containsEntry("rows", "skipped").containsEntry("dataFiles", "5");
    }

    @Test
    void helpPrintsUsageAndBadArgumentsFailWithOneLine() throws Exception {
        ChildJvm.Run help = run(List.of(), Ingest.class.getName(), "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.output()).contains("usage:", "RESULT");

        ChildJvm.Run bad = run(List.of(), Ingest.class.getName(), "nope.properties", "test.events", "x", "1", "1");
        assertThat(bad.exitCode()).isNotZero();
        assertThat(bad.output().strip()).startsWith("ingest: error:").doesNotContain("\n");
    }

    @Test
    void aMissingCatalogFailsWithOneLine() throws Exception {
        Path properties = dir.resolve("bad.properties");
        Files.writeString(properties, "catalog-impl=no.such.Catalog\nwarehouse=" + dir.resolve("w") + "\n");

        ChildJvm.Run child = run(List.of(), Ingest.class.getName(), properties.toString(), "a.b", "1", "1", "1");

        assertThat(child.exitCode()).isEqualTo(1);
        assertThat(child.output().strip()).startsWith("ingest: error:").doesNotContain("\n");
    }

    @Test
    void demoRunsTheUnguardedHalfAndComparesIt() throws Exception {
        Path out = dir.resolve("demo");

        ChildJvm.Run child = run(
                List.of(),
                Demo.class.getName(),
                "--skip-agent",
                "--repo",
                repo().toString(),
                "--out",
                out.toString(),
                "20",
                "4",
                "1");

        assertThat(child.exitCode()).as(child.output()).isZero();
        assertThat(child.output()).contains("final snapshots", "unguarded", "rebuilds (log lines)");
        assertThat(out.resolve("unguarded.log")).content().contains("RESULT commits=20 ");
    }

    @Test
    void demoWithoutTheAgentJarSaysSoAndExits2() throws Exception {
        Path emptyRepo = Files.createDirectories(dir.resolve("repo"));

        ChildJvm.Run child = run(List.of(), Demo.class.getName(), "--repo", emptyRepo.toString());

        assertThat(child.exitCode()).isEqualTo(2);
        assertThat(child.output().strip()).contains("floe-agent.jar").doesNotContain("\n");
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

    /** Runs {@code args[0]} (a main class) with the rest as its arguments, in a JVM of its own. */
    private ChildJvm.Run run(List<String> jvmOptions, String... args) throws Exception {
        return new ChildJvm(args[0], List.of(args).subList(1, args.length))
                .jvm(jvmOptions)
                .bound(Duration.ofMinutes(5))
                .run(Files.createTempFile(dir, "child", ".log"));
    }
}
