package dev.floe.runtime.rest;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
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
 */
public final class RestHandler implements HttpHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RestHandler.class);

    private final CatalogRoutes routes;
    private final BearerToken token;
    private final RestSettings settings;

    public RestHandler(ServedCatalog served, RestSettings settings) {
        this.routes = new CatalogRoutes(served, settings.writes());
        this.token = new BearerToken(settings.token());
        this.settings = settings;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            boolean head = "HEAD".equalsIgnoreCase(exchange.getRequestMethod());
            RESTResponse response;
            try {
                response = serve(exchange);
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
        }
    }

    private RESTResponse serve(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        if (!token.admits(exchange.getRequestHeaders().getFirst("Authorization"))) {
            throw new NotAuthorizedException("Not authorized: this endpoint needs the header Authorization: Bearer"
                    + " <token>, the token of floe.rest.token or floe.rest.token-file");
        }
        URI uri = exchange.getRequestURI();
        RestRoute.Match match = RestRoute.match(method, uri.getRawPath());
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
            body = RestJson.mapper().readValue(body(exchange), match.route().requestClass());
            if (body == null) {
                throw new BadRequestException(
                        "Missing request body: expected %s",
                        match.route().requestClass().getSimpleName());
            }
        }
        return routes.serve(match.route(), match.variables(), query(uri.getRawQuery()), body);
    }

    /** The request body, refused past the limit before it is read when its length is declared. */
    private byte[] body(HttpExchange exchange) throws IOException {
        long limit = settings.maxBodyBytes();
        String declared = exchange.getRequestHeaders().getFirst("Content-Length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.trim()) > limit) {
                    throw new RestErrors.BodyTooLarge(limit);
                }
            } catch (NumberFormatException e) {
                throw new BadRequestException("Malformed Content-Length: %s", declared);
            }
        }
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
            if (bytes.length > limit) {
                throw new RestErrors.BodyTooLarge(limit);
            }
            return bytes;
        }
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
