package dev.floe.agent.it;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * The catalogs the crash tests run a host on, all in one folder: floe's own {@code MapDbCatalog}
 * (the catalog file in {@code <dir>/warehouse}), and Iceberg's {@code JdbcCatalog} on a real SQLite
 * file {@code <dir>/catalog.db}, whose table floe guards because {@code floe.tables} names it and
 * whose records floe keeps in {@code <dir>/floe-state.db}. The host and the checking test open them
 * alike, under one name.
 */
enum CrashCatalog {
    MAPDB("dev.floe.catalog.MapDbCatalog"),
    JDBC("org.apache.iceberg.jdbc.JdbcCatalog");

    /** The catalog's name, in the host and in the test (a JDBC catalog keys its tables by it). */
    static final String NAME = "host";

    private final String impl;

    CrashCatalog(String impl) {
        this.impl = impl;
    }

    /** The catalog named on a host's command line: {@code mapdb} or {@code jdbc}. */
    static CrashCatalog named(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** How a host's command line names it. */
    String argument() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Path warehouse(Path dir) {
        return dir.resolve("warehouse");
    }

    /** floe's state file, for a catalog other than its own. */
    static Path stateFile(Path dir) {
        return dir.resolve("floe-state.db");
    }

    /** The catalog's properties, as {@code initialize} gets them. */
    Map<String, String> properties(Path dir) {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse(dir).toString());
        if (this == JDBC) {
            properties.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"));
            properties.put("jdbc.schema-version", "V1");
            // Iceberg 1.10's JdbcCatalog.initialize leaves a metadata ResultSet open: its first pooled
            // connection holds a SQLite read lock for the catalog's life, so one connection, one instance
            properties.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
        }
        return properties;
    }

    /** The agent's configuration lines this catalog needs besides the matrix's own. */
    String agentConfig(Path dir) {
        return this == JDBC ? "floe.tables=db.events\nfloe.state.file=" + stateFile(dir) + "\n" : "";
    }

    /** A new instance on {@code dir}'s catalog; the caller closes it. */
    Catalog open(Path dir) {
        Object conf = this == JDBC ? new org.apache.hadoop.conf.Configuration() : null;
        return CatalogUtil.loadCatalog(impl, NAME, properties(dir), conf);
    }
}
