package dev.floe.agent.it;

import dev.floe.catalog.MapDbCatalog;
import java.util.Map;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/** Child-JVM probe: opens a MapDbCatalog from whatever jar provides it, and commits twice. */
public final class ShadedCatalogProbe {
    private ShadedCatalogProbe() {}

    public static void main(String[] args) throws Exception {
        System.out.println("catalog from "
                + MapDbCatalog.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .getPath());
        System.out.println("org.mapdb from "
                + Class.forName("org.mapdb.DB")
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .getPath());
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("probe", Map.of("warehouse", args[0]));
        try (catalog) {
            Table table = catalog.createTable(
                    TableIdentifier.of("db", "t"),
                    new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
            for (int i = 0; i < 2; i++) {
                table.newFastAppend()
                        .appendFile(DataFiles.builder(PartitionSpec.unpartitioned())
                                .withPath(args[0] + "/f" + i + ".parquet")
                                .withFileSizeInBytes(1)
                                .withRecordCount(1)
                                .build())
                        .commit();
            }
            System.out.println("snapshots="
                    + catalog.loadTable(TableIdentifier.of("db", "t"))
                            .currentSnapshot()
                            .summary()
                            .get("total-data-files"));
        }
    }
}
