package dev.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

/**
 * A catalog file that cannot be used is refused with a message naming the file and the problem, and
 * is never written to.
 */
class BadCatalogFileTest {
    private static final TableIdentifier EVENTS = TableIdentifier.of(Namespace.of("db"), "events");

    @TempDir
    Path root;

    @Test
    @Timeout(60)
    void fileHeldByAnotherProcessIsInUse() throws Exception {
        makeCatalogWithATable();
        Path file = TestCatalogs.catalogFile(root);

        try (ChildJvm holder = ChildJvm.start(root.resolve("logs"), HoldCatalogOpen.class, root.toString())) {
            holder.awaitLine("ready"::equals, Duration.ofSeconds(40));
            byte[] before = Files.readAllBytes(file);

            assertThatThrownBy(() -> TestCatalogs.open(root))
                    .isInstanceOf(CatalogInUseException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("in use by another process (process " + holder.pid() + ")")
                    .satisfies(e -> assertThat(((CatalogInUseException) e).holder())
                            .as("the holder wrote its id into the lock file")
                            .hasValue(holder.pid()));
            assertThatThrownBy(() -> TestCatalogs.open(root)).isInstanceOf(CatalogInUseException.class);

            assertThat(Files.readAllBytes(file)).isEqualTo(before);
            holder.kill();
        }

        // once the holder is gone, the file opens and its table is intact
        try (MapDbCatalog catalog = TestCatalogs.open(root)) {
            assertThat(catalog.loadTable(EVENTS).currentSnapshot()).isNotNull();
        }
    }

    @Test
    @Timeout(90)
    void openingAfterTheHolderIsGoneKeepsTheFileLocked() throws Exception {
        makeCatalogWithATable();
        try (ChildJvm holder = ChildJvm.start(root.resolve("logs"), HoldCatalogOpen.class, root.toString())) {
            holder.awaitLine("ready"::equals, Duration.ofSeconds(40));
            assertThatThrownBy(() -> TestCatalogs.open(root)).isInstanceOf(CatalogInUseException.class);
            holder.kill();
        }

        // the attempt that found the file in use must not cost this process its lock later on,
        // however the garbage collector cleans up after that attempt
        try (MapDbCatalog catalog = TestCatalogs.open(root)) {
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(100);
            }
            try (ChildJvm second = ChildJvm.start(root.resolve("logs"), HoldCatalogOpen.class, root.toString())) {
                String answer = second.awaitLine(
                        line -> line.equals("ready") || line.startsWith("in-use "), Duration.ofSeconds(40));
                assertThat(answer)
                        .as("second process while this one holds the catalog")
                        .startsWith("in-use ");
            }
            assertThat(catalog.loadTable(EVENTS).currentSnapshot()).isNotNull();
        }
    }

    @Test
    void textFileIsNotAMapDbFile() throws IOException {
        for (String text : List.of("hello, this is not a catalog\n", "Just a text file that starts with J\n")) {
            Path file = TestCatalogs.catalogFile(root);
            Files.writeString(file, text);
            List<String> listing = listing();

            assertThatThrownBy(() -> TestCatalogs.open(root))
                    .isInstanceOf(CatalogFileException.class)
                    .isNotInstanceOf(CatalogInUseException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("not a MapDB file")
                    .hasMessageContaining("not a floe catalog")
                    .satisfies(
                            e -> assertThat(((CatalogFileException) e).file()).isEqualTo(file));

            assertThat(Files.readString(file)).isEqualTo(text);
            assertThat(listing()).isEqualTo(listing);
            Files.delete(file);
        }
    }

    @Test
    void truncatedCatalogIsDamagedAndLeftAsItIs() throws IOException {
        makeCatalogWithATable();
        Path file = TestCatalogs.catalogFile(root);
        byte[] truncated = Arrays.copyOf(Files.readAllBytes(file), 100);
        Files.write(file, truncated);
        List<String> listing = listing();

        for (int attempt = 0; attempt < 2; attempt++) {
            // the same answer every time: a failed open must not leave the file locked by this JVM
            assertThatThrownBy(() -> TestCatalogs.open(root))
                    .isInstanceOf(CatalogFileException.class)
                    .isNotInstanceOf(CatalogInUseException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("damaged or truncated");
            assertThat(Files.readAllBytes(file)).isEqualTo(truncated);
            assertThat(listing()).isEqualTo(listing);
        }
    }

    @Test
    void catalogCutInHalfIsDamagedAndLeftAsItIs() throws IOException {
        makeCatalogWithATable();
        Path file = TestCatalogs.catalogFile(root);
        byte[] whole = Files.readAllBytes(file);
        byte[] half = Arrays.copyOf(whole, whole.length / 2);
        Files.write(file, half);

        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> TestCatalogs.open(root))
                    .isInstanceOf(CatalogFileException.class)
                    .isNotInstanceOf(CatalogInUseException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("damaged or truncated");
            assertThat(Files.readAllBytes(file)).isEqualTo(half);
        }
    }

    @Test
    void emptyFileIsRefusedAndLeftAsItIs() throws IOException {
        Path file = TestCatalogs.catalogFile(root);
        Files.createFile(file);
        List<String> listing = listing();

        assertThatThrownBy(() -> TestCatalogs.open(root))
                .isInstanceOf(CatalogFileException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("is empty")
                .hasMessageContaining("not a floe catalog");

        assertThat(Files.size(file)).isZero();
        assertThat(listing()).isEqualTo(listing);
    }

    @Test
    void mapDbFileOfSomethingElseIsRefusedAndLeftAsItIs() throws IOException {
        Path file = TestCatalogs.catalogFile(root);
        DB foreign = DBMaker.fileDB(file.toFile())
                .transactionEnable()
                .fileChannelEnable()
                .make();
        foreign.hashMap("users", Serializer.STRING, Serializer.STRING)
                .createOrOpen()
                .put("ada", "x");
        foreign.commit();
        foreign.close();
        byte[] before = Files.readAllBytes(file);
        List<String> listing = listing();

        assertThatThrownBy(() -> TestCatalogs.open(root))
                .isInstanceOf(CatalogFileException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("written by something other than floe");

        assertThat(Files.readAllBytes(file)).isEqualTo(before);
        assertThat(listing()).as("no files left beside it").isEqualTo(listing);
        DB reopened = DBMaker.fileDB(file.toFile())
                .transactionEnable()
                .fileChannelEnable()
                .make();
        assertThat(reopened.getAllNames()).containsExactly("users");
        reopened.close();
    }

    @Test
    void directoryIsRefused() throws IOException {
        Path file = TestCatalogs.catalogFile(root);
        Files.createDirectories(file);

        assertThatThrownBy(() -> TestCatalogs.open(root))
                .isInstanceOf(CatalogFileException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("is a directory");
        assertThat(Files.isDirectory(file)).isTrue();
    }

    @Test
    void missingWarehouseIsNamed() {
        Path file = TestCatalogs.catalogFile(root);
        for (Map<String, String> properties : List.of(
                Map.of(MapDbCatalog.URI, file.toString()),
                Map.of(MapDbCatalog.URI, file.toString(), CatalogProperties.WAREHOUSE_LOCATION, " "))) {
            MapDbCatalog catalog = new MapDbCatalog();
            assertThatThrownBy(() -> catalog.initialize("floe", properties))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'warehouse'");
        }
        assertThat(Files.exists(file)).as("nothing created without a warehouse").isFalse();
    }

    private void makeCatalogWithATable() throws IOException {
        try (MapDbCatalog catalog = TestCatalogs.open(root)) {
            catalog.createNamespace(EVENTS.namespace());
            TestCatalogs.append(catalog.buildTable(EVENTS, TestCatalogs.SCHEMA).create(), "one");
        }
    }

    /** The files beside the catalog file, so a test can tell nothing was added. */
    private List<String> listing() throws IOException {
        try (Stream<Path> files = Files.list(root)) {
            return files.map(path -> path.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }
}
