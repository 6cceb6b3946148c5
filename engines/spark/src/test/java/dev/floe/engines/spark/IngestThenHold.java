package dev.floe.engines.spark;

import dev.floe.catalog.MapDbCatalog;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;

/**
 * The sample ingest ({@code dev.floe.samples.Ingest}, unchanged, through its {@code run}) in a host
 * that keeps a MapDbCatalog of its own open on the ingest's catalog file from before the ingest starts
 * until a release file appears. The agent's REST endpoint serves the file as long as the host holds
 * an instance on it open, so it goes on serving the table as the ingest left it after the ingest
 * stopped committing and closed its catalog: a reader can catch up to the final snapshot through the
 * endpoint before the host exits. (The sample ingest alone closes its catalog and exits right after
 * its RESULT line, and the endpoint with it.)
 *
 * <p>Runs on the samples jar's class path with this module's test classes after it: the Iceberg and
 * MapDbCatalog it links against are the host's. After the ingest returns it prints {@code host: the
 * ingest ended (status <n>)}; it exits with the ingest's status once the release file exists.
 *
 * <p>Arguments: the warehouse, the release file, then the ingest's own arguments.
 */
public final class IngestThenHold {
    private IngestThenHold() {}

    public static void main(String[] args) throws Exception {
        Path warehouse = Path.of(args[0]);
        Path release = Path.of(args[1]);
        String[] ingestArgs = Arrays.copyOfRange(args, 2, args.length);
        int status;
        MapDbCatalog held = new MapDbCatalog();
        held.initialize("held", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
        try (held) {
            // the samples jar is not on this module's class path (see the pom): the ingest by name
            Method run = Class.forName("dev.floe.samples.Ingest").getMethod("run", String[].class, PrintStream.class);
            try {
                status = (Integer) run.invoke(null, ingestArgs, System.out);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
            System.out.println("host: the ingest ended (status " + status + "); the catalog stays open until " + release
                    + " exists");
            System.out.flush();
            while (!Files.exists(release)) {
                Thread.sleep(50);
            }
        }
        System.out.flush();
        System.exit(status);
    }
}
