package dev.floe.runtime.history;

import static org.apache.iceberg.Files.localInput;
import static org.apache.iceberg.Files.localOutput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.runtime.deltas.CompactionMap;
import dev.floe.runtime.deltas.CompactionMap.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layout map: two rebuilds' compaction maps composed (a run through a file the second rebuild
 * kept stays, one through a file it rewrote follows that file's runs, a row it dropped cuts them, a
 * pruned row stays pruned), written and read back whole, and a file that is not a map refused.
 */
class LayoutMapTest {
    @TempDir
    Path dir;

    @Test
    void twoRebuildsComposeWriteAndReadBack() throws IOException {
        // rebuild 1: a (4 rows) and b (3 rows) into t1, row 2 of a pruned; c kept as it is
        CompactionMap first = new CompactionMap();
        first.keep("c");
        first.placed("a", 0, "t1", 0);
        first.placed("a", 1, "t1", 1);
        first.pruned("a", 2);
        first.placed("a", 3, "t1", 2);
        first.placed("b", 0, "t1", 3);
        first.placed("b", 1, "t1", 4);
        first.placed("b", 2, "t1", 5);
        LayoutMap one = LayoutMap.empty().composedWith(first, 10);
        assertThat(one.entry("a").runs())
                .containsExactly(
                        new Run(0, "t1", 0, 2), new Run(2, CompactionMap.PRUNED, 2, 1), new Run(3, "t1", 2, 1));

        // rebuild 2: t1 (6 rows) into t2 after 5 rows of d, its row 4 (b's row 1) deleted since
        CompactionMap second = new CompactionMap();
        for (int r = 0; r < 5; r++) {
            second.placed("d", r, "t2", r);
        }
        for (int r = 0; r < 6; r++) {
            if (r != 4) {
                second.placed("t1", r, "t2", 5 + (r < 4 ? r : r - 1));
            }
        }
        LayoutMap two = one.composedWith(second, 20);
        assertThat(two.entry("a").runs())
                .containsExactly(
                        new Run(0, "t2", 5, 2), new Run(2, CompactionMap.PRUNED, 2, 1), new Run(3, "t2", 7, 1));
        assertThat(two.entry("b").runs()).containsExactly(new Run(0, "t2", 8, 1), new Run(2, "t2", 9, 1));
        assertThat(two.entry("a").consumedAt()).isEqualTo(10);
        assertThat(two.entry("t1").consumedAt()).isEqualTo(20);
        assertThat(two.entry("c")).as("kept by the first, not a source").isNull();

        Path file = dir.resolve("map.bin");
        two.write(localOutput(file.toFile()));
        LayoutMap read = LayoutMap.read(localInput(file.toFile()), 99);
        for (String source : List.of("a", "b", "d", "t1")) {
            assertThat(read.entry(source)).as(source).isEqualTo(two.entry(source));
        }
        assertThat(read.size()).isEqualTo(two.size());
        assertThat(two.consumedFrom(15).entry("a")).isNull();
        assertThat(two.consumedFrom(15).entry("t1")).isNotNull();
    }

    @Test
    void aFileThatIsNotAMapIsRefused() throws IOException {
        Path file = dir.resolve("not-a-map.bin");
        Files.writeString(file, "PAR1 and then some");
        assertThatThrownBy(() -> LayoutMap.read(localInput(file.toFile()), 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not a floe layout map");
    }
}
