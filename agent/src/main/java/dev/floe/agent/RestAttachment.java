package dev.floe.agent;

import com.sun.net.httpserver.HttpHandler;
import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.rest.MapDbServedCatalog;
import dev.floe.runtime.rest.RestHandler;
import dev.floe.runtime.rest.RestSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Predicate;

/**
 * One class loader's part in the REST catalog endpoint: the first MapDbCatalog the host opens in
 * this loader is served, from an instance of floe's own on its file ({@link
 * MapDbServedCatalog#onFileOf}), so the endpoint serves on whenever the host closes and opens its
 * instances. The handler is built here, against this loader's Iceberg and Jackson, and handed to the
 * listener the agent bound at start ({@link RestStart}); the first loader to attach one is served,
 * one line saying which catalog.
 *
 * <p>What the served instance loads is not the host's: {@link Hooks} tracks none of its handles. Its
 * commits (REST writes, when enabled) are ordinary commits of MapDbTableOperations in this loader,
 * so the agent's advice on them takes the table's gate as for any host commit.
 */
final class RestAttachment {
    private final Predicate<HttpHandler> slot;
    private final RestSettings settings;
    private volatile MapDbCatalog served;
    private Path servedFile; // guarded by this
    private boolean declined; // guarded by this: another loader's catalog is served

    /**
     * @param slot the listener's attach, or null when the endpoint is off
     * @param settings the endpoint's settings as this loader parsed them
     */
    RestAttachment(Predicate<HttpHandler> slot, RestSettings settings) {
        this.slot = slot;
        this.settings = settings;
    }

    /** Whether {@code catalog} is the instance the endpoint serves (its loads are not the host's). */
    boolean isServed(Object catalog) {
        return catalog != null && catalog == served;
    }

    /** Called when the host opened {@code host}: serves it if nothing is served yet. */
    synchronized void opened(MapDbCatalog host) {
        if (slot == null || settings == null || declined || servedFile != null) {
            return;
        }
        MapDbServedCatalog catalog;
        HttpHandler handler;
        try {
            catalog = MapDbServedCatalog.onFileOf(host);
            if (catalog == null) {
                return; // closed again already: the next one opened is served
            }
            handler = new RestHandler(catalog, settings);
        } catch (RuntimeException | LinkageError e) {
            declined = true;
            AgentLog.error("the REST catalog endpoint cannot serve MapDbCatalog '" + host.name() + "' (" + e
                    + "); it answers 503, and floe guards on");
            return;
        }
        if (slot.test(handler)) {
            served = catalog.instance();
            servedFile = host.catalogFile();
            AgentLog.info(
                    "the REST catalog endpoint serves MapDbCatalog '" + host.name() + "' (" + host.catalogFile() + ")");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> close(catalog), "floe-rest-catalog-exit"));
        } else {
            declined = true;
            close(catalog);
            AgentLog.info("the REST catalog endpoint serves a MapDbCatalog of another class loader;" + " MapDbCatalog '"
                    + host.name() + "' (" + host.catalogFile() + ") is not served");
        }
    }

    private static void close(MapDbServedCatalog catalog) {
        try {
            catalog.close();
        } catch (IOException | RuntimeException e) {
            AgentLog.warn("closing the REST endpoint's instance of " + catalog + " failed: " + e);
        }
    }
}
