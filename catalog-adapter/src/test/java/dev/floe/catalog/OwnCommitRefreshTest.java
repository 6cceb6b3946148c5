package dev.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NotFoundException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The refresh after an instance's own commit takes the metadata it committed, as the file it wrote
 * holds it, without reading that file back; anyone else's commit is read from its file.
 */
class OwnCommitRefreshTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @TempDir
    Path root;

    MapDbCatalog catalog;

    @BeforeEach
    void open() {
        catalog = TestCatalogs.open(root);
        catalog.createNamespace(Namespace.of("db"));
    }

    @AfterEach
    void close() throws IOException {
        catalog.close();
    }

    @Test
    void theRefreshAfterItsOwnCommitIsWhatItWroteWithoutReadingItBack() throws IOException {
        Table table = catalog.buildTable(EVENTS, TestCatalogs.SCHEMA).create();
        for (int i = 0; i < 3; i++) {
            TestCatalogs.append(table, "row-" + i);
        }
        TableOperations ops = ((HasTableOperations) table).operations();
        TableMetadata base = ops.current();

        ops.commit(
                base,
                TableMetadata.buildFrom(base)
                        .setProperties(java.util.Map.of("k", "v"))
                        .build());
        Path written = Path.of(catalog.metadataLocation(EVENTS));
        String json = Files.readString(written);
        Files.delete(written); // a read of it now would fail

        TableMetadata current = ops.current();
        assertThat(current.metadataFileLocation()).isEqualTo(written.toString());
        assertThat(current.properties()).containsEntry("k", "v");
        assertThat(current.lastUpdatedMillis())
                .isEqualTo(TableMetadataParser.fromJson(json).lastUpdatedMillis());
        assertThat(TableMetadataParser.toJson(current))
                .as("the same as the file")
                .isEqualTo(json);
        assertThat(current.changes()).isEmpty();
    }

    @Test
    void aCommitOfAnotherInstanceIsReadFromItsFile() throws IOException {
        Table table = catalog.buildTable(EVENTS, TestCatalogs.SCHEMA).create();
        Table other = catalog.loadTableUncached(EVENTS);
        TestCatalogs.append(other, "row-0");
        Files.delete(Path.of(catalog.metadataLocation(EVENTS)));

        assertThatThrownBy(() -> ((HasTableOperations) table).operations().refresh())
                .isInstanceOf(NotFoundException.class);
    }
}
