package dev.floe.agent.it;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CachingCatalog;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * A host that knows nothing of floe and reads through Iceberg's {@code CachingCatalog} (as Spark and
 * Flink do): a JdbcCatalog on SQLite, wrapped; one cached handle appended to {@code commits} times.
 * Then, without committing or refreshing, it watches what its cached handle shows until that is a
 * rebuilt table (its current snapshot is floe's, a {@code replace} on top of the history it kept),
 * at most {@code waitSeconds}, and prints {@code cached current=<operation> rows=<total-records>}
 * and {@code same handle=<true|false>} (the
 * catalog hands out the very object it cached). It closes its catalog once floe's JMX says the
 * rebuild is over: a host that closes the instance floe is working on makes that work fail (and be
 * retried later), which this test is not about.
 *
 * <p>Arguments: dir, commits, waitSeconds.
 */
public final class CachingHost {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    private CachingHost() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int commits = Integer.parseInt(args[1]);
        long waitNanos = Long.parseLong(args[2]) * 1_000_000_000L;
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"));
        properties.put(
                CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("warehouse").toString());
        properties.put("jdbc.schema-version", "V1");
        properties.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
        JdbcCatalog jdbc = new JdbcCatalog();
        jdbc.setConf(new Configuration());
        jdbc.initialize("host", properties);
        jdbc.createNamespace(Namespace.of("db"));
        jdbc.createTable(EVENTS, CrashHost.SCHEMA);
        Catalog catalog = CachingCatalog.wrap(jdbc);
        Table cached = catalog.loadTable(EVENTS);
        for (int commit = 0; commit < commits; commit++) {
            cached.newFastAppend()
                    .appendFile(CrashHostFiles.write(cached, commit * 3L, 3))
                    .commit();
        }
        long deadline = System.nanoTime() + waitNanos;
        while (!rebuilt(cached) && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // observing the handle: floe reloads it from its own thread
        }
        System.out.println("cached current=" + cached.currentSnapshot().operation() + " rows="
                + cached.currentSnapshot().summary().get("total-records"));
        System.out.println("same handle=" + (catalog.loadTable(EVENTS) == cached));
        // the test's orchestration, not the host's business: keep the catalog open until the rebuild
        // has finished its work on it (it lists the retired files right after the reload)
        javax.management.ObjectName agent = new javax.management.ObjectName("dev.floe:type=Agent");
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        while (server.isRegistered(agent)
                && (Long) server.getAttribute(agent, "Rebuilds") < 1
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        jdbc.close();
    }

    private static boolean rebuilt(Table table) {
        return table.currentSnapshot().summary().containsKey("floe.rebuild-of-snapshot");
    }
}
