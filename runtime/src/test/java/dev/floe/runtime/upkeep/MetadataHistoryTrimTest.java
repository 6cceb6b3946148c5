package dev.floe.runtime.upkeep;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.rebuild.Compactor;
import dev.floe.runtime.seam.ReachableFiles;
import dev.floe.runtime.testing.CatalogFixture;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/** Metadata files the metadata log forgets are deleted by reference; nothing listed is touched. */
class MetadataHistoryTrimTest extends CatalogFixture {

    private static Set<String> metadataJsonOnDisk(Path root) {
        return TestTables.filesOnDisk(root).stream()
                .filter(f -> f.endsWith(".metadata.json"))
                .collect(Collectors.toSet());
    }

    private static Set<String> listed(TableMetadata metadata) {
        List<String> files = new ArrayList<>();
        files.add(metadata.metadataFileLocation());
        metadata.previousFiles().forEach(e -> files.add(e.file()));
        return TestTables.localPaths(files);
    }

    /** db.events keeping 3 previous metadata files, after {@code appends} appends of 10 rows. */
    private Table eventsWithALogOfThree(int appends) {
        Table table = catalog.createTable(
                EVENTS,
                TestTables.SIMPLE,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "3"));
        for (int i = 0; i < appends; i++) {
            TestTables.append(table, TestTables.simpleRows(i * 10L, 10));
        }
        return table;
    }

    @Test
    void deletesExactlyWhatTheLogForgotAndShortensTheCommitLog() {
        Table table = eventsWithALogOfThree(12);
        assertThat(metadataJsonOnDisk(root)).hasSize(13);
        assertThat(catalog.commitLog(EVENTS)).hasSize(13);

        TableMetadata current = ((HasTableOperations) catalog.loadTableUncached(EVENTS))
                .operations()
                .current();
        int deleted = MetadataHistoryTrim.trim(catalog, EVENTS, current);

        assertThat(deleted).isEqualTo(9);
        assertThat(metadataJsonOnDisk(root)).isEqualTo(listed(current)).hasSize(4);
        assertThat(catalog.commitLog(EVENTS)).hasSize(4);
        assertThat(TestTables.localPaths(catalog.commitLog(EVENTS).values())).isEqualTo(listed(current));
        assertThat(TestTables.read(catalog.loadTableUncached(EVENTS))).hasSize(120);
        assertThat(catalog.loadTableUncached(EVENTS).snapshots()).hasSize(12);

        assertThat(MetadataHistoryTrim.trim(catalog, EVENTS, current)).isZero();
    }

    @Test
    void aRebuiltTableGetsAShortLogUnlessItChoseItsOwn() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        TestTables.append(table, TestTables.simpleRows(0, 10));
        Table other = catalog.createTable(
                TableIdentifier.of("db", "own"),
                TestTables.SIMPLE,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "50"));
        TestTables.append(other, TestTables.simpleRows(0, 10));
        Compactor compactor = new Compactor(RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO));

        compactor.compactTable(catalog, EVENTS, Prune.NONE);
        compactor.compactTable(catalog, TableIdentifier.of("db", "own"), Prune.NONE);

        assertThat(catalog.loadTableUncached(EVENTS).properties())
                .containsEntry(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "10")
                .doesNotContainKey(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED);
        assertThat(catalog.loadTableUncached(TableIdentifier.of("db", "own")).properties())
                .containsEntry(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "50");

        Table untouched = catalog.createTable(TableIdentifier.of("db", "plain"), TestTables.SIMPLE);
        TestTables.append(untouched, TestTables.simpleRows(0, 10));
        new Compactor(RebuildSettings.defaults().with(s -> s.metadataVersions = 0))
                .compactTable(catalog, TableIdentifier.of("db", "plain"), Prune.NONE);
        assertThat(catalog.loadTableUncached(TableIdentifier.of("db", "plain")).properties())
                .doesNotContainKey(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX);
    }

    @Test
    void afterARebuildTheOldFilesTheLogForgotAreGoneAtOnceAndReclaimStillFindsEveryFile() {
        Table table = eventsWithALogOfThree(12);
        TableMetadata last = ((HasTableOperations) table).operations().refresh();
        Set<String> forgotten = TestTables.localPaths(catalog.commitLog(EVENTS).values());
        forgotten.removeAll(listed(last));
        assertThat(forgotten).hasSize(9);

        new Compactor(RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ofMinutes(10)))
                .compactTable(catalog, EVENTS, Prune.NONE);

        Set<String> onDisk = TestTables.filesOnDisk(root);
        assertThat(onDisk).doesNotContainAnyElementsOf(forgotten);
        assertThat(onDisk).containsAll(listed(last)); // the grace window still protects these

        new Reclaimer(catalog).runAll();
        Table rebuilt = catalog.loadTableUncached(EVENTS);
        Set<String> live = TestTables.localPaths(
                ReachableFiles.of(((HasTableOperations) rebuilt).operations().current(), rebuilt.io()));
        assertThat(TestTables.filesOnDisk(root)).isEqualTo(live);
        assertThat(TestTables.read(rebuilt)).hasSize(120);
    }

    @Test
    void theRebuiltTablesOwnFirstMetadataFileIsTrimmedOnceItsLogForgetsIt() {
        eventsWithALogOfThree(2);
        new Compactor(RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO))
                .compactTable(catalog, EVENTS, Prune.NONE);
        new Reclaimer(catalog).runAll();
        Table rebuilt = catalog.loadTableUncached(EVENTS);
        for (int i = 0; i < 6; i++) {
            TestTables.append(rebuilt, TestTables.simpleRows(1000 + i * 10L, 10));
        }

        TableMetadata current = ((HasTableOperations) catalog.loadTableUncached(EVENTS))
                .operations()
                .current();
        MetadataHistoryTrim.trim(catalog, EVENTS, current);

        // the scratch table's first metadata file (00000-floe-scratch-...) included: nothing is left
        // that the table no longer lists
        assertThat(metadataJsonOnDisk(root)).isEqualTo(listed(current));
        assertThat(TestTables.read(catalog.loadTableUncached(EVENTS))).hasSize(80);
    }
}
