package dev.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The catalog's handle cache: bounded, and never serving a handle behind the catalog's pointer. */
class HandleCacheTest {
    private static final Namespace NS = Namespace.of("db");

    @TempDir
    Path root;

    private MapDbCatalog catalog;
    private MapDbCatalog other;

    @AfterEach
    void close() throws IOException {
        if (other != null) {
            other.close();
        }
        if (catalog != null) {
            catalog.close();
        }
    }

    @Test
    @Timeout(120)
    void defaultCacheHoldsAtMost512Handles() {
        catalog = TestCatalogs.open(root);
        catalog.createNamespace(NS);
        TableIdentifier first = TableIdentifier.of(NS, "t0");
        catalog.buildTable(first, TestCatalogs.SCHEMA).create();
        String metadata = catalog.metadataLocation(first);
        // 2,000 real catalog entries (one transaction each) sharing one metadata file
        for (int i = 1; i < 2000; i++) {
            catalog.registerTable(TableIdentifier.of(NS, "t" + i), metadata);
        }
        assertThat(catalog.listTables(NS)).hasSize(2000);

        Table last = null;
        for (int i = 0; i < 2000; i++) {
            TableIdentifier id = TableIdentifier.of(NS, "t" + i);
            last = catalog.loadTable(id);
            assertThat(last.name()).isEqualTo("floe." + id);
        }

        assertThat(catalog.cachedHandles()).isBetween(1L, 512L);
        // the handle just loaded is one the cache serves again
        assertThat(catalog.loadTable(TableIdentifier.of(NS, "t1999"))).isSameAs(last);
    }

    @Test
    void commitThroughAnotherHandleIsNeverServedStale() {
        catalog = TestCatalogs.open(root);
        TableIdentifier id = TableIdentifier.of(NS, "events");
        catalog.buildTable(id, TestCatalogs.SCHEMA).create();
        Table cached = catalog.loadTable(id);
        assertThat(catalog.loadTable(id)).isSameAs(cached);
        String before = catalog.metadataLocation(id);

        // a second catalog on the same file holds a handle of its own and commits through it
        other = TestCatalogs.open(root);
        Table elsewhere = other.loadTable(id);
        assertThat(elsewhere).isNotSameAs(cached);
        TestCatalogs.append(elsewhere, "from-elsewhere");
        String after = other.metadataLocation(id);
        assertThat(after).isNotEqualTo(before);
        assertThat(catalog.metadataLocation(id)).isEqualTo(after);

        Table reloaded = catalog.loadTable(id);
        assertThat(location(reloaded)).isEqualTo(after);
        assertThat(reloaded.currentSnapshot().snapshotId())
                .isEqualTo(elsewhere.currentSnapshot().snapshotId());

        // and a commit through the very handle the cache holds
        TestCatalogs.append(reloaded, "from-cached");
        String third = catalog.metadataLocation(id);
        assertThat(third).isNotEqualTo(after);
        Table again = catalog.loadTable(id);
        assertThat(location(again)).isEqualTo(third);
        assertThat(again.snapshots()).hasSize(2);
    }

    @Test
    void maxHandlesZeroCachesNothingAndStillLoads() {
        catalog = TestCatalogs.open(root, Map.of(MapDbCatalog.CACHE_MAX_HANDLES, "0"));
        TableIdentifier id = TableIdentifier.of(NS, "events");
        catalog.buildTable(id, TestCatalogs.SCHEMA).create();

        Table one = catalog.loadTable(id);
        Table two = catalog.loadTable(id);

        assertThat(catalog.cachedHandles()).isZero();
        assertThat(two).isNotSameAs(one);
        assertThat(location(two)).isEqualTo(catalog.metadataLocation(id));
    }

    @Test
    void maxHandlesThatIsNotANumberNamesTheProperty() {
        assertThatThrownBy(() -> TestCatalogs.open(root, Map.of(MapDbCatalog.CACHE_MAX_HANDLES, "abc")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'cache.max-handles'")
                .hasMessageContaining("abc");
        assertThatThrownBy(() -> TestCatalogs.open(root, Map.of(MapDbCatalog.CACHE_MAX_HANDLES, "-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'cache.max-handles'");

        // the refused configuration left nothing open: the file opens normally afterwards
        catalog = TestCatalogs.open(root);
        assertThat(catalog.listNamespaces()).isEmpty();
    }

    private static String location(Table table) {
        return ((HasTableOperations) table).operations().current().metadataFileLocation();
    }
}
