package dev.floe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A part that fails hides no other part, and the figures' table takes any figures, none included. */
class BenchFailuresTest {
    @TempDir
    Path dir;

    @Test
    void aFailedPartIsReportedWithItsCauseAndTheOtherPartsFiguresAreStillWritten() throws Exception {
        Path repo = dir.resolve("repo");
        Files.createDirectories(repo.resolve("agent/target"));
        Files.createDirectories(repo.resolve("samples"));
        Files.writeString(repo.resolve("agent/target/floe-agent.jar"), "");
        Files.writeString(repo.resolve("samples/floe.properties"), "");
        Harness h = new Harness(repo, dir.resolve("out"), dir.resolve("work"), new Sizes(true), false);
        Map<String, Bench.Part> parts = new LinkedHashMap<>();
        // an IllegalArgumentException of a part is the run's failure, not a bad argument
        parts.put("broken", harness -> {
            throw new IllegalArgumentException("no such figure");
        });
        // a figure with no aim: the table's last column is empty in every row
        parts.put(
                "fine",
                harness -> harness.figures.add(
                        Figure.of("2", "something measured", "ms", Figure.side("this", 2), Figure.side("that", 4))));

        int exit = new Bench(h, parts).runParts(new LinkedHashSet<>(List.of("broken", "fine")));

        assertThat(exit).isEqualTo(1);
        String summary = Files.readString(h.out.resolve("summary.md"));
        assertThat(summary)
                .contains("| 2 | something measured | this | 2.0 ms | that | 4.0 ms | 0.500x |")
                .contains("Failed")
                .contains("- broken: IllegalArgumentException: no such figure (stack trace in ");
        assertThat(Files.readAllLines(h.out.resolve("summary.csv")))
                .hasSize(2)
                .last()
                .asString()
                .startsWith("2,something measured,this,2.0,that,4.0,ms,0.50000,,");
        assertThat(Files.readString(h.work.resolve("logs/broken-failure.txt")))
                .contains("java.lang.IllegalArgumentException: no such figure", "BenchFailuresTest");
    }

    @Test
    void theTableOfNoFiguresIsItsHeaderAlone() {
        String table = Figure.table(List.of());

        assertThat(table.lines()).hasSize(2);
        assertThat(table.lines().findFirst().orElseThrow()).startsWith("#  figure  measured");
    }
}
