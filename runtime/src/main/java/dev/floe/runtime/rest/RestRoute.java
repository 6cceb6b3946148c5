package dev.floe.runtime.rest;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTRequest;
import org.apache.iceberg.rest.ResourcePaths;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;

/**
 * The routes the endpoint serves: Iceberg's REST paths ({@link ResourcePaths}, without a prefix),
 * each with the request body it reads and whether it changes the catalog (refused unless writes are
 * enabled). The table is the one Iceberg's test adapter ({@code RESTCatalogAdapter.Route}) routes,
 * less views (a MapDbCatalog has none), OAuth tokens, multi-table transactions and scan planning.
 */
enum RestRoute {
    CONFIG("GET", "/v1/config", null, false, null),
    LIST_NAMESPACES("GET", ResourcePaths.V1_NAMESPACES, Endpoint.V1_LIST_NAMESPACES, false, null),
    CREATE_NAMESPACE(
            "POST", ResourcePaths.V1_NAMESPACES, Endpoint.V1_CREATE_NAMESPACE, true, CreateNamespaceRequest.class),
    NAMESPACE_EXISTS("HEAD", ResourcePaths.V1_NAMESPACE, Endpoint.V1_NAMESPACE_EXISTS, false, null),
    LOAD_NAMESPACE("GET", ResourcePaths.V1_NAMESPACE, Endpoint.V1_LOAD_NAMESPACE, false, null),
    DROP_NAMESPACE("DELETE", ResourcePaths.V1_NAMESPACE, Endpoint.V1_DELETE_NAMESPACE, true, null),
    UPDATE_NAMESPACE(
            "POST",
            ResourcePaths.V1_NAMESPACE_PROPERTIES,
            Endpoint.V1_UPDATE_NAMESPACE,
            true,
            UpdateNamespacePropertiesRequest.class),
    LIST_TABLES("GET", ResourcePaths.V1_TABLES, Endpoint.V1_LIST_TABLES, false, null),
    CREATE_TABLE("POST", ResourcePaths.V1_TABLES, Endpoint.V1_CREATE_TABLE, true, CreateTableRequest.class),
    TABLE_EXISTS("HEAD", ResourcePaths.V1_TABLE, Endpoint.V1_TABLE_EXISTS, false, null),
    LOAD_TABLE("GET", ResourcePaths.V1_TABLE, Endpoint.V1_LOAD_TABLE, false, null),
    UPDATE_TABLE("POST", ResourcePaths.V1_TABLE, Endpoint.V1_UPDATE_TABLE, true, UpdateTableRequest.class),
    DROP_TABLE("DELETE", ResourcePaths.V1_TABLE, Endpoint.V1_DELETE_TABLE, true, null),
    REGISTER_TABLE(
            "POST", ResourcePaths.V1_TABLE_REGISTER, Endpoint.V1_REGISTER_TABLE, true, RegisterTableRequest.class),
    RENAME_TABLE("POST", ResourcePaths.V1_TABLE_RENAME, Endpoint.V1_RENAME_TABLE, true, RenameTableRequest.class),
    /** A client's scan report: read, checked and dropped; it changes nothing, so it is served read-only too. */
    REPORT_METRICS(
            "POST", ResourcePaths.V1_TABLE_METRICS, Endpoint.V1_REPORT_METRICS, false, ReportMetricsRequest.class);

    private final String method;
    private final List<String> parts;
    private final Endpoint endpoint;
    private final boolean mutates;
    private final Class<? extends RESTRequest> requestClass;

    RestRoute(
            String method, String path, Endpoint endpoint, boolean mutates, Class<? extends RESTRequest> requestClass) {
        this.method = method;
        this.parts = List.of(path.replace("/{prefix}", "").substring(1).split("/"));
        this.endpoint = endpoint;
        this.mutates = mutates;
        this.requestClass = requestClass;
    }

    /** The route and its path variables (raw, still URL-encoded), or null when none matches. */
    record Match(RestRoute route, Map<String, String> variables) {}

    /** Matches {@code method} and the raw (undecoded) request path. */
    static Match match(String method, String rawPath) {
        String[] given = rawPath.startsWith("/") ? rawPath.substring(1).split("/", -1) : rawPath.split("/", -1);
        for (RestRoute route : values()) {
            Map<String, String> variables = route.variables(method, given);
            if (variables != null) {
                return new Match(route, variables);
            }
        }
        return null;
    }

    private Map<String, String> variables(String requestMethod, String[] given) {
        if (!method.equalsIgnoreCase(requestMethod) || given.length != parts.size()) {
            return null;
        }
        Map<String, String> variables = new LinkedHashMap<>();
        for (int i = 0; i < given.length; i++) {
            String part = parts.get(i);
            if (part.startsWith("{") && part.endsWith("}")) {
                if (given[i].isEmpty()) {
                    return null;
                }
                variables.put(part.substring(1, part.length() - 1), given[i]);
            } else if (!part.equals(given[i])) {
                return null;
            }
        }
        return variables;
    }

    /** Iceberg's name for this route in a config response; null for the config route itself. */
    Endpoint endpoint() {
        return endpoint;
    }

    boolean mutates() {
        return mutates;
    }

    /** The body it reads, or null when it reads none. */
    Class<? extends RESTRequest> requestClass() {
        return requestClass;
    }

    boolean isHead() {
        return method.equals("HEAD");
    }
}
