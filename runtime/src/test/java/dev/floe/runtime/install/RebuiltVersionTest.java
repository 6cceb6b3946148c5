package dev.floe.runtime.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.rows.RebuiltTableProperties;
import dev.floe.runtime.rows.RollingParquetWriter;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildJournal;
import dev.floe.runtime.testing.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-place install for catalogs other than floe's own, on real catalogs: Iceberg's JdbcCatalog
 * over a real SQLite database file, and its HadoopCatalog on the local file system. The rebuilt
 * version replaces every snapshot with one through the catalog's own compare-and-swap.
 */
class RebuiltVersionTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @TempDir
    Path root;
    /** floe's durable state for the rebuild journal (the state file other catalogs get). */
    MapDbCatalog state;

    @BeforeEach
    void openState() {
        state = TestTables.catalog(root.resolve("floe-state"));
    }

    @AfterEach
    void closeState() throws IOException {
        state.close();
    }

    /** A JdbcCatalog named {@code name} on the one SQLite file (JDBC catalogs key their tables by name). */
    private JdbcCatalog jdbc(String name) {
        return TestTables.sqliteJdbc(root, name);
    }

    private HadoopCatalog hadoop() {
        HadoopCatalog catalog = new HadoopCatalog();
        catalog.setConf(new Configuration());
        catalog.initialize(
                "hadoop",
                Map.of(
                        CatalogProperties.WAREHOUSE_LOCATION,
                        root.resolve("hadoop").toString()));
        return catalog;
    }

    /** A table of many small appends, as an ingest leaves it. */
    private static Table manySmallAppends(Catalog catalog, int appends) {
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int i = 0; i < appends; i++) {
            TestTables.append(table, TestTables.simpleRows(i * 10L, 10));
        }
        return table;
    }

    /** Streams the table's rows into rebuilt files and stages the rebuilt version over {@code base}. */
    private TableMetadata stageRebuild(Table live, TableMetadata base) {
        RebuildJournal journal =
                new RebuildJournal(new MapDbRebuildCatalog(state).state(), EVENTS, ScratchTable.nameFor(EVENTS));
        journal.begin();
        return stageRebuild(live, base, journal);
    }

    private TableMetadata stageRebuild(Table live, TableMetadata base, RebuildJournal journal) {
        RebuildSettings settings = RebuildSettings.defaults();
        RollingParquetWriter.Result written;
        try (CloseableIterable<Record> rows = IcebergGenerics.read(live)
                .useSnapshot(base.currentSnapshot().snapshotId())
                .build()) {
            written = new RollingParquetWriter(live, settings, journal::fileStarted).write(rows, Prune.NONE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RebuiltFiles files = RebuiltFiles.of(written.files());
        return RebuiltVersion.stage(
                ops(live),
                base,
                RebuiltTableProperties.of(settings, base.properties()),
                files,
                PrewrittenManifest.write(live, files, journal),
                base.currentSnapshot().snapshotId(),
                HistoryWindow.NONE,
                HistoryRewrites.NONE,
                settings.writerMarkers(),
                journal);
    }

    private static TableOperations ops(Table table) {
        return ((HasTableOperations) table).operations();
    }

    @Test
    void everyFileTheStagedVersionWroteIsNamedByFloeAndJournaled() {
        try (JdbcCatalog catalog = jdbc("ingest")) {
            Table live = manySmallAppends(catalog, 3);
            RebuildJournal journal =
                    new RebuildJournal(new MapDbRebuildCatalog(state).state(), EVENTS, ScratchTable.nameFor(EVENTS));
            journal.begin();

            TableMetadata staged = stageRebuild(live, ops(live).refresh(), journal);

            // named before Iceberg writes it (StagedOperations.metadataFileLocation): a crash while
            // staging leaves nothing the journal does not list
            List<String> written = new java.util.ArrayList<>();
            for (org.apache.iceberg.Snapshot snapshot : staged.snapshots()) {
                written.add(snapshot.manifestListLocation());
                snapshot.allManifests(ops(live).io()).forEach(m -> written.add(m.path()));
            }
            assertThat(written).isNotEmpty().allSatisfy(file -> {
                assertThat(java.nio.file.Path.of(java.net.URI.create(file).getPath())
                                .getFileName()
                                .toString())
                        .startsWith("floe-");
                assertThat(journal.files()).contains(file);
            });
            assertThat(journal.files()).doesNotHaveDuplicates();
        }
    }

    @Test
    void aJdbcTableIsRebuiltInPlaceIntoOneSnapshotWithEveryRow() throws Exception {
        try (JdbcCatalog catalog = jdbc("ingest")) {
            Table live = manySmallAppends(catalog, 12);
            TableMetadata base = ops(live).refresh();
            List<String> before = TestTables.fingerprints(live);
            String uuid = base.uuid();

            RebuiltVersion.commit(ops(live), base, stageRebuild(live, base));

            // read back through another catalog instance on the same database file
            try (JdbcCatalog reader = jdbc("ingest")) {
                Table rebuilt = reader.loadTable(EVENTS);
                TableMetadata metadata = ops(rebuilt).current();
                assertThat(rebuilt.snapshots()).hasSize(1);
                assertThat(rebuilt.currentSnapshot().parentId()).isNull();
                assertThat(metadata.uuid()).isEqualTo(uuid);
                assertThat(metadata.schema().sameSchema(base.schema())).isTrue();
                assertThat(metadata.location()).isEqualTo(base.location());
                assertThat(metadata.spec()).isEqualTo(base.spec());
                assertThat(rebuilt.properties()).containsEntry("write.parquet.compression-codec", "zstd");
                assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(before);
                assertThat(rebuilt.currentSnapshot().summary())
                        .containsEntry("total-records", "120")
                        .containsEntry("total-data-files", "1")
                        .containsKey(RebuiltFiles.REBUILD_OF);
                assertThat(metadata.previousFiles()).isNotEmpty(); // the history of metadata files, for reclaim
            }
            // the host's handle goes on committing onto the rebuilt table
            live.refresh();
            TestTables.append(live, TestTables.simpleRows(1000, 3));
            assertThat(TestTables.read(live)).hasSize(123);
            assertThat(live.snapshots()).hasSize(2);
        }
    }

    @Test
    void aCommitFromElsewhereThatLandsFirstMakesTheInstallFailAndIsKept() throws Exception {
        try (JdbcCatalog catalog = jdbc("ingest")) {
            Table live = manySmallAppends(catalog, 6);
            TableMetadata base = ops(live).refresh();
            TableMetadata rebuilt = stageRebuild(live, base);

            // another process's writer commits to the same table through its own catalog
            try (JdbcCatalog other = jdbc("ingest")) {
                TestTables.append(other.loadTable(EVENTS), TestTables.simpleRows(500, 4));
            }

            assertThatThrownBy(() -> RebuiltVersion.commit(ops(live), base, rebuilt))
                    .isInstanceOf(CommitFailedException.class);
            try (JdbcCatalog reader = jdbc("ingest")) {
                Table table = reader.loadTable(EVENTS);
                assertThat(table.snapshots()).hasSize(7);
                assertThat(TestTables.read(table)).hasSize(64);
            }
        }
    }

    @Test
    void aHadoopTableIsRebuiltInPlaceToo() throws Exception {
        try (HadoopCatalog catalog = hadoop()) {
            Table live = manySmallAppends(catalog, 8);
            TableMetadata base = ops(live).refresh();
            List<String> before = TestTables.fingerprints(live);

            RebuiltVersion.commit(ops(live), base, stageRebuild(live, base));

            Table rebuilt = hadoop().loadTable(EVENTS);
            assertThat(rebuilt.snapshots()).hasSize(1);
            assertThat(ops(rebuilt).current().uuid()).isEqualTo(base.uuid());
            assertThat(TestTables.fingerprints(rebuilt)).isEqualTo(before);
            // the old data files are still on disk: they are reclaimed by reference, later
            try (var files = Files.walk(root.resolve("hadoop"))) {
                assertThat(files.filter(f -> f.toString().endsWith(".parquet")).count())
                        .isEqualTo(9);
            }
        }
    }
}
