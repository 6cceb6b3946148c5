package dev.floe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.samples.ChildJvm;
import dev.floe.samples.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark command as a reader runs it, {@code Bench --quick} (every part at its smallest
 * size), in a JVM of its own with the agent jar the build made: it must end with exit 0, every part
 * must have succeeded and written its figures and its CSV, and the summary must be there. Its
 * figures are not judged: at these sizes they measure nothing. About 3 minutes on 2 cores.
 */
class BenchSmokeTest {
    /** Each part's CSV, by the part's name. */
    private static final Map<String, String> CSV = Map.ofEntries(
            Map.entry("growth", "growth.csv"),
            Map.entry("throughput", "throughput.csv"),
            Map.entry("lowheap", "lowheap.csv"),
            Map.entry("stall", "stall.csv"),
            Map.entry("overhead", "overhead.csv"),
            Map.entry("jdbc", "jdbc-growth.csv"),
            Map.entry("incremental", "incremental-wa.csv"),
            Map.entry("upsert", "upsert.csv"),
            Map.entry("rest", "rest.csv"),
            Map.entry("history", "history.csv"),
            Map.entry("rewrite", "rewrite.csv"),
            Map.entry("promotion", "promotion.csv"),
            Map.entry("keepup", "keepup.csv"));

    @TempDir
    Path dir;

    @Test
    void theQuickRunOfEveryPartEndsWellAndWritesEveryPartsFigures() throws Exception {
        Path repo = Repo.locate(BenchSmokeTest.class);
        assertThat(repo.resolve("agent/target/floe-agent.jar"))
                .as("the agent jar, built before this module")
                .isRegularFile();
        Path out = dir.resolve("out");

        ChildJvm.Run bench = new ChildJvm(
                        Bench.class.getName(),
                        List.of(
                                "--quick",
                                "--out",
                                out.toString(),
                                "--work",
                                dir.resolve("work").toString(),
                                "--repo",
                                repo.toString()))
                .bound(Duration.ofMinutes(10))
                .run(dir.resolve("bench.log"));

        assertThat(bench.exitCode()).as(bench.output()).isZero();
        assertThat(bench.output()).doesNotContain("bench: FAILED", " failed: ");
        String summary = Files.readString(out.resolve("summary.md"));
        assertThat(summary).startsWith("A QUICK").doesNotContain("Failed");
        // every part's figures: a part is numbered by its place in the run
        Map<String, Integer> rowsByPart = new TreeMap<>();
        List<String> csv = Files.readAllLines(out.resolve("summary.csv"));
        assertThat(csv.get(0)).startsWith("part,figure,");
        for (String row : csv.subList(1, csv.size())) {
            rowsByPart.merge(row.substring(0, row.indexOf(',')), 1, Integer::sum);
        }
        List<String> names = new ArrayList<>(Bench.PARTS.keySet());
        for (int i = 0; i < names.size(); i++) {
            String part = names.get(i);
            assertThat(rowsByPart).as("figures of %s", part).containsKey(Integer.toString(i + 1));
            assertThat(summary).as("figures of %s in summary.md", part).contains("\n| " + (i + 1) + " | ");
            assertThat(out.resolve(CSV.get(part))).as("the CSV of %s", part).isNotEmptyFile();
        }
        assertThat(rowsByPart).hasSize(names.size());
        assertThat(Files.readString(out.resolve("chart.svg"))).startsWith("<svg");
    }
}
