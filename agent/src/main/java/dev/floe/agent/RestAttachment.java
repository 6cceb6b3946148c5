package dev.floe.agent;

import com.sun.net.httpserver.HttpHandler;
import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.rest.MapDbServedCatalog;
import dev.floe.runtime.rest.RestHandler;
import dev.floe.runtime.rest.RestSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.BiPredicate;

/**
 * One class loader's part in the REST catalog endpoint. When the host opens a MapDbCatalog and
 * nothing is served, it is served, from an instance of floe's own on its file ({@link
 * MapDbServedCatalog#onFileOf}), so the endpoint serves on whichever of the host's instances on
 * that file it closes. When the host closes the last of them, the endpoint lets the file go: its
 * handler is detached (requests are answered 503 again), its instance closed, and the next
 * MapDbCatalog the host opens, in this loader or another, is served. The handler is built here,
 * against this loader's Iceberg and Jackson, and swapped into the listener the agent bound at start
 * ({@link RestStart}); one line says which catalog is served, and one when it no longer is.
 *
 * <p>What the served instance loads is not the host's: {@link Hooks} tracks none of its handles. Its
 * commits (REST writes, when enabled) are ordinary commits of MapDbTableOperations in this loader,
 * so the agent's advice on them takes the table's gate as for any host commit.
 */
final class RestAttachment {
    private final BiPredicate<HttpHandler, HttpHandler> slot;
    private final RestSettings settings;
    private volatile MapDbCatalog served;
    private Serving serving; // guarded by this: what this loader serves now, or null
    /**
     * The host's open instances in this loader, by file, weakly (one dropped unclosed does not pin
     * it): served or not, so the file served is let go only when the last of them closes.
     */
    private final Map<Path, Set<MapDbCatalog>> hosts = new HashMap<>(); // guarded by this

    private boolean failed; // guarded by this: a handler could not be built here (said once)
    private boolean declineSaid; // guarded by this: "another loader's catalog is served" was said
    private boolean exitHook; // guarded by this

    private record Serving(MapDbServedCatalog catalog, RestHandler handler, Path file, String name) {}

    /**
     * @param slot the listener's compare-and-set of its handler, or null when the endpoint is off
     * @param settings the endpoint's settings as this loader parsed them
     */
    RestAttachment(BiPredicate<HttpHandler, HttpHandler> slot, RestSettings settings) {
        this.slot = slot;
        this.settings = settings;
    }

    /** Whether {@code catalog} is the instance the endpoint serves (its loads are not the host's). */
    boolean isServed(Object catalog) {
        return catalog != null && catalog == served;
    }

    /** Called when the host opened {@code host}: serves it if nothing is served yet. */
    synchronized void opened(MapDbCatalog host) {
        if (slot == null || settings == null) {
            return;
        }
        hosts.computeIfAbsent(host.catalogFile(), file -> Collections.newSetFromMap(new WeakHashMap<>()))
                .add(host);
        if (failed || serving != null) {
            return;
        }
        MapDbServedCatalog catalog = null;
        RestHandler handler;
        try {
            catalog = MapDbServedCatalog.onFileOf(host);
            if (catalog == null) {
                return; // closed again already: the next one opened is served
            }
            handler = new RestHandler(catalog, settings);
        } catch (RuntimeException | LinkageError e) {
            if (catalog != null) {
                close(catalog); // else it would hold the file for good
            }
            failed = true;
            AgentLog.error("the REST catalog endpoint cannot serve MapDbCatalog '" + host.name() + "' (" + e
                    + "); it answers 503, and floe guards on");
            return;
        }
        if (!slot.test(null, handler)) {
            close(catalog, handler);
            if (!declineSaid) {
                declineSaid = true;
                AgentLog.info("the REST catalog endpoint serves a MapDbCatalog of another class loader;"
                        + " MapDbCatalog '" + host.name() + "' (" + host.catalogFile() + ") is not served");
            }
            return;
        }
        serving = new Serving(catalog, handler, host.catalogFile(), host.name());
        served = catalog.instance();
        AgentLog.info(
                "the REST catalog endpoint serves MapDbCatalog '" + host.name() + "' (" + host.catalogFile() + ")");
        if (!exitHook) {
            exitHook = true;
            Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "floe-rest-catalog-exit"));
        }
    }

    /**
     * Called when the host starts to close {@code host}: when it is the last of the host's instances
     * on the file served, the endpoint stops serving it and closes its own instance.
     */
    synchronized void closing(MapDbCatalog host) {
        Set<MapDbCatalog> open = hosts.get(host.catalogFile());
        if (open == null || !open.remove(host) || !open.isEmpty()) {
            return;
        }
        hosts.remove(host.catalogFile());
        if (serving == null || !serving.file().equals(host.catalogFile())) {
            return;
        }
        Serving was = serving;
        stop();
        AgentLog.info("the REST catalog endpoint no longer serves MapDbCatalog '" + was.name() + "' (" + was.file()
                + "): the host closed it; it answers 503 until the host opens a MapDbCatalog again");
    }

    private synchronized void stop() {
        Serving was = serving;
        if (was == null) {
            return;
        }
        serving = null;
        slot.test(was.handler(), null);
        was.handler().close(); // refuses new requests and waits for the running ones
        served = null; // after them: their loads are never taken for the host's
        close(was.catalog());
    }

    private static void close(MapDbServedCatalog catalog, RestHandler handler) {
        handler.close();
        close(catalog);
    }

    private static void close(MapDbServedCatalog catalog) {
        try {
            catalog.close();
        } catch (IOException | RuntimeException e) {
            AgentLog.warn("closing the REST endpoint's instance of " + catalog + " failed: " + e);
        }
    }
}
