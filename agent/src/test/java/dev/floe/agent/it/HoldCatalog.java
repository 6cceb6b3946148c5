package dev.floe.agent.it;

import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * Child JVM of {@link CliIT}: a stand-in for a running ingest. Opens the MapDB catalog under the
 * warehouse given as its argument, prints {@code ready}, and holds it open until its standard input
 * ends (or it is killed).
 */
public final class HoldCatalog {
    private HoldCatalog() {}

    public static void main(String[] args) throws Exception {
        Catalog catalog =
                CatalogUtil.loadCatalog("dev.floe.catalog.MapDbCatalog", "holder", Map.of("warehouse", args[0]), null);
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() != -1) {
            // hold the catalog open
        }
        ((AutoCloseable) catalog).close();
    }
}
