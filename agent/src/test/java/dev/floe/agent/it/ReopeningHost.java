package dev.floe.agent.it;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.samples.Events;
import dev.floe.samples.IngestSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A host that opens its MapDbCatalog, closes it and opens it again, each step when the test says so:
 * it opens two instances on the file and prints {@code opened 1}, waits for {@code <control>/close},
 * closes the second and prints {@code closed one}, waits for {@code <control>/close-last}, closes the
 * first and prints {@code closed}, waits for {@code <control>/reopen}, opens a new instance, prints
 * {@code opened 2}, waits for {@code <control>/exit} and ends. The table {@code db.events} is made at
 * the first open.
 *
 * <p>Arguments: the warehouse, the control directory.
 */
public final class ReopeningHost {
    private ReopeningHost() {}

    public static void main(String[] args) throws Exception {
        Path warehouse = Path.of(args[0]);
        Path control = Path.of(args[1]);
        try (MapDbCatalog first = open(warehouse)) {
            first.createNamespace(Namespace.of("db"), Map.of());
            first.createTable(TableIdentifier.of("db", "events"), Events.SCHEMA);
            MapDbCatalog second = open(warehouse);
            System.out.println("opened 1");
            await(control.resolve("close"));
            second.close();
            System.out.println("closed one");
            await(control.resolve("close-last"));
        }
        System.out.println("closed");
        await(control.resolve("reopen"));
        try (MapDbCatalog second = open(warehouse)) {
            System.out.println("opened 2 tables=" + second.listTables(Namespace.of("db")));
            await(control.resolve("exit"));
        }
    }

    private static MapDbCatalog open(Path warehouse) {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.setConf(IngestSettings.nioHadoopConf());
        catalog.initialize("host", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
        return catalog;
    }

    /** Polls for the test's file: this process has nothing else to wait on, and the test bounds it. */
    private static void await(Path file) throws InterruptedException {
        while (!Files.exists(file)) {
            Thread.sleep(20);
        }
    }
}
