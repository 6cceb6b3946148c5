package dev.floe.runtime.rest;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.rest.RESTRequest;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request, start to end: the token (401 without it, before anything else), the route (400 for
 * none), the write switch (403 for a mutating route when writes are off), the body (413 past the
 * limit, 400 when it is not the route's request), then {@link CatalogRoutes}. Every error is
 * Iceberg's {@link ErrorResponse}, written by Iceberg's serializers; nothing a request does escapes
 * into the host beyond the catalog call it makes.
 *
 * <p>Writes are served on threads of their own ({@value #WRITE_THREADS}): a commit passes the
 * table's gate and may wait there for a rebuild's install, and reads must never queue behind it.
 * {@link #close} refuses new requests (503) and waits for the running ones, so the catalog they read
 * is closed after them, never under them.
 * Every request runs with the served catalog's class loader as the thread's context loader, as a
 * call from the host's own threads would (Iceberg loads FileIO and other classes through it).
 */
public final class RestHandler implements HttpHandler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RestHandler.class);
    /** Commits served at once; more wait for a thread, reads never do. */
    static final int WRITE_THREADS = 2;
    /** How long {@link #close} waits for the requests still running. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private final CatalogRoutes routes;
    private final BearerToken token;
    private final RestSettings settings;
    private final ClassLoader loader;
    private final ExecutorService writes;
    private final InFlightRequests inFlight = new InFlightRequests();

    public RestHandler(ServedCatalog served, RestSettings settings) {
        this.routes = new CatalogRoutes(served, settings.writes());
        this.token = new BearerToken(settings.token());
        this.settings = settings;
        this.loader = served.catalog().getClass().getClassLoader();
        this.writes = settings.writes()
                ? Executors.newFixedThreadPool(WRITE_THREADS, RestListener.daemons("floe-rest-write-"))
                : null;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        RestRoute.Match match = RestRoute.match(
                exchange.getRequestMethod(), exchange.getRequestURI().getRawPath());
        if (writes != null && match != null && match.route().mutates() && admitted(exchange)) {
            RequestBody body = match.route().requestClass() == null
                    ? null
                    : RequestBody.readNow(exchange, settings.maxBodyBytes());
            try {
                writes.execute(() -> respond(exchange, match, body));
                return;
            } catch (RejectedExecutionException closed) {
                // closed: answered 503 on this thread
            }
            respond(exchange, match, body);
            return;
        }
        respond(exchange, match, null);
    }

    /**
     * Refuses new requests (503), waits up to {@link #CLOSE_WAIT} for the running ones and ends the
     * write threads: the served catalog may be closed after.
     */
    @Override
    public void close() {
        if (!inFlight.closeAndAwait(CLOSE_WAIT)) {
            LOG.warn("floe: REST requests still ran {} after the endpoint began to close", CLOSE_WAIT);
        }
        if (writes != null) {
            writes.shutdown();
        }
    }

    private void respond(HttpExchange exchange, RestRoute.Match match, RequestBody body) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        boolean entered = inFlight.enter();
        try (exchange) {
            boolean head = "HEAD".equalsIgnoreCase(exchange.getRequestMethod());
            RESTResponse response;
            try {
                if (!entered) {
                    throw new ServiceUnavailableException(
                            "The endpoint no longer serves this catalog (the host closed it); retry");
                }
                response = serve(exchange, match, body);
            } catch (Exception | LinkageError e) {
                ErrorResponse error = RestErrors.of(e instanceof Exception ? (Exception) e : new RuntimeException(e));
                if (error.code() >= 500) {
                    LOG.warn(
                            "floe: REST {} {} failed",
                            exchange.getRequestMethod(),
                            exchange.getRequestURI().getRawPath(),
                            e);
                }
                send(exchange, error.code(), head ? null : error);
                return;
            }
            send(exchange, response == null ? 204 : 200, head ? null : response);
        } catch (IOException e) {
            LOG.debug(
                    "floe: REST {} could not be answered",
                    exchange.getRequestURI().getRawPath(),
                    e);
        } finally {
            if (entered) {
                inFlight.exit();
            }
            thread.setContextClassLoader(previous);
        }
    }

    private boolean admitted(HttpExchange exchange) {
        return token.admits(exchange.getRequestHeaders().getFirst("Authorization"));
    }

    private RESTResponse serve(HttpExchange exchange, RestRoute.Match match, RequestBody preread) throws IOException {
        String method = exchange.getRequestMethod();
        if (!admitted(exchange)) {
            throw new NotAuthorizedException("Not authorized: this endpoint needs the header Authorization: Bearer"
                    + " <token>, the token of floe.rest.token or floe.rest.token-file");
        }
        URI uri = exchange.getRequestURI();
        if (match == null) {
            throw new BadRequestException("No route for request: %s %s", method, uri.getRawPath());
        }
        if (match.route().mutates() && !settings.writes()) {
            throw new ForbiddenException(
                    "This endpoint serves the catalog read-only: %s %s changes it, which"
                            + " needs floe.rest.writes=true",
                    method, uri.getRawPath());
        }
        Object body = null;
        if (match.route().requestClass() != null) {
            byte[] bytes = preread != null ? preread.bytes() : RequestBody.read(exchange, settings.maxBodyBytes());
            body = RestJson.mapper().readValue(bytes, match.route().requestClass());
            if (body == null) {
                throw new BadRequestException(
                        "Missing request body: expected %s",
                        match.route().requestClass().getSimpleName());
            }
            // what Iceberg's own handlers assume of a request (an empty object has none of its fields)
            ((RESTRequest) body).validate();
        }
        return routes.serve(match.route(), match.variables(), query(uri.getRawQuery()), body);
    }

    static Map<String, String> query(String raw) {
        Map<String, String> params = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return params;
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.putIfAbsent(key, value);
        }
        return params;
    }

    private static void send(HttpExchange exchange, int code, Object body) throws IOException {
        if (body == null) {
            exchange.sendResponseHeaders(code == 200 ? 204 : code, -1);
            return;
        }
        byte[] json = RestJson.mapper().writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(code, json.length);
        exchange.getResponseBody().write(json);
    }
}
