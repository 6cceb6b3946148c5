package dev.floe.catalog;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * Shared set-up of the catalog tests: a catalog under a root folder, a tiny schema, fake appends.
 */
final class TestCatalogs {
    static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    private TestCatalogs() {}

    /** The catalog file of a catalog opened with {@link #open(Path)} on {@code root}. */
    static Path catalogFile(Path root) {
        return root.resolve("catalog.db").toAbsolutePath().normalize();
    }

    static Map<String, String> properties(Path root) {
        Map<String, String> properties = new HashMap<>();
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION, root.resolve("warehouse").toString());
        properties.put(MapDbCatalog.URI, catalogFile(root).toString());
        return properties;
    }

    /** A new MapDbCatalog on {@code root}/catalog.db, tables under {@code root}/warehouse. */
    static MapDbCatalog open(Path root) {
        return open(root, Map.of());
    }

    static MapDbCatalog open(Path root, Map<String, String> extra) {
        Map<String, String> properties = properties(root);
        properties.putAll(extra);
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("floe", properties);
        return catalog;
    }

    /**
     * Commits one fast append of a made-up data file: a real Iceberg commit (manifest, manifest list,
     * metadata file, pointer swap) without writing any Parquet.
     */
    static DataFile append(Table table, String name) {
        DataFile file = DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(10)
                .withRecordCount(1)
                .build();
        table.newFastAppend().appendFile(file).commit();
        return file;
    }
}
