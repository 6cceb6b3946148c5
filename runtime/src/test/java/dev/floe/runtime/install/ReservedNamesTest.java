package dev.floe.runtime.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.FloeStateFile;
import dev.floe.runtime.seam.FloeState;
import dev.floe.runtime.seam.RebuildJournal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Locations handed out for a rewrite's files are in the journal, durably, before anyone writes them. */
class ReservedNamesTest {
    @TempDir
    Path root;

    @Test
    void everyLocationIsInTheDurableJournalBeforeItIsHandedOutOneWritePerBlock() {
        try (FloeStateFile file = FloeStateFile.open(root.resolve("state.db"))) {
            int[] writes = {0};
            FloeState counted = FloeState.of(
                    file::entries,
                    (section, key, value) -> {
                        writes[0]++;
                        file.put(section, key, value);
                    },
                    file::remove);
            RebuildJournal journal =
                    new RebuildJournal(counted, TableIdentifier.of("db", "t"), TableIdentifier.of("db", "t_floe"));
            ReservedNames names =
                    new ReservedNames(journal, "history", ".avro", name -> "file:/warehouse/db/t/metadata/" + name);
            List<String> handed = new ArrayList<>();
            for (int i = 0; i < ReservedNames.BLOCK + 1; i++) {
                String location = names.next();
                // what recovery would read from the file now, as after a crash here
                List<String> recorded =
                        RebuildJournal.unfinished(FloeState.of(file)).get(0).files();
                assertThat(recorded).contains(location);
                handed.add(location);
            }
            assertThat(writes[0]).isEqualTo(2);
            assertThat(new HashSet<>(handed)).hasSize(ReservedNames.BLOCK + 1);
            assertThat(handed)
                    .allSatisfy(location -> assertThat(location)
                            .startsWith("file:/warehouse/db/t/metadata/floe-history-")
                            .endsWith(".avro"));
            assertThat(names.fits("snap-1-1-abc.avro")).isTrue();
            assertThat(names.fits("abc.metadata.json")).isFalse();
        }
    }
}
