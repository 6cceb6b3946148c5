package dev.floe.catalog;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.CatalogTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Iceberg's own catalog contract, run against a MapDbCatalog on a real file. */
class MapDbCatalogCatalogTest extends CatalogTests<MapDbCatalog> {
    @TempDir
    Path temp;

    private MapDbCatalog catalog;
    private int opened;

    @BeforeEach
    void open() {
        catalog = initCatalog("mapdb", Map.of());
    }

    @AfterEach
    void close() throws IOException {
        if (catalog != null) {
            catalog.close();
        }
    }

    @Override
    protected MapDbCatalog catalog() {
        return catalog;
    }

    @Override
    protected MapDbCatalog initCatalog(String name, Map<String, String> additional) {
        Path root = temp.resolve("catalog-" + opened++);
        Map<String, String> properties = new HashMap<>();
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION, root.resolve("warehouse").toString());
        properties.put(MapDbCatalog.URI, root.resolve("catalog.db").toString());
        properties.put("table-default.default-key1", "catalog-default-key1");
        properties.put("table-default.default-key2", "catalog-default-key2");
        properties.put("table-default.override-key3", "catalog-default-key3");
        properties.put("table-override.override-key3", "catalog-override-key3");
        properties.put("table-override.override-key4", "catalog-override-key4");
        properties.putAll(additional);
        MapDbCatalog created = new MapDbCatalog();
        created.initialize(name, properties);
        return created;
    }

    @Override
    protected boolean supportsNestedNamespaces() {
        return true;
    }

    @Override
    protected boolean supportsEmptyNamespace() {
        return true;
    }
}
