package dev.floe.agent.it;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * Child JVM of {@link CliIT}: a stand-in for a running ingest. Opens the MapDB catalog under the
 * warehouse given as its argument (or, given a {@code .properties} file, the catalog that file
 * names), prints {@code ready}, and holds it open until its standard input ends (or it is killed).
 */
public final class HoldCatalog {
    private HoldCatalog() {}

    public static void main(String[] args) throws Exception {
        Catalog catalog;
        if (args[0].endsWith(".properties")) {
            Properties loaded = new Properties();
            try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
                loaded.load(in);
            }
            Map<String, String> props = new LinkedHashMap<>();
            loaded.stringPropertyNames().forEach(key -> props.put(key, loaded.getProperty(key)));
            catalog = CatalogUtil.buildIcebergCatalog("holder", props, new org.apache.hadoop.conf.Configuration());
        } else {
            catalog = CatalogUtil.loadCatalog(
                    "dev.floe.catalog.MapDbCatalog", "holder", Map.of("warehouse", args[0]), null);
        }
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() != -1) {
            // hold the catalog open
        }
        ((AutoCloseable) catalog).close();
    }
}
