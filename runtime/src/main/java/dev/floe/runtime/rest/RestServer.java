package dev.floe.runtime.rest;

import java.io.IOException;

/**
 * The endpoint as a plain library, without the agent: listens as {@code settings} say and serves
 * {@code catalog} at once. The agent instead binds a {@link RestListener} at start and attaches a
 * {@link RestHandler} when the host opens its catalog.
 */
public final class RestServer implements AutoCloseable {
    private final RestListener listener;
    private final RestHandler handler;
    private final ServedCatalog catalog;

    private RestServer(RestListener listener, RestHandler handler, ServedCatalog catalog) {
        this.listener = listener;
        this.handler = handler;
        this.catalog = catalog;
    }

    /** Serves {@code catalog}; closing the server closes it too. */
    public static RestServer start(RestSettings settings, ServedCatalog catalog) throws IOException {
        RestListener listener = RestListener.open(settings);
        RestHandler handler = new RestHandler(catalog, settings);
        listener.attach(handler);
        return new RestServer(listener, handler, catalog);
    }

    public String uri() {
        return listener.uri();
    }

    public int port() {
        return listener.port();
    }

    @Override
    public void close() throws IOException {
        handler.close(); // refuses new requests and waits for the running ones
        listener.close();
        catalog.close();
    }
}
