package dev.floe.runtime.rest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ListNamespacesResponse;
import org.apache.iceberg.rest.responses.ListTablesResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;

/**
 * What each route does: Iceberg's own {@link CatalogHandlers} on the served catalog, except where
 * floe reads the table itself ({@link ServedCatalog#currentMetadata}, {@link
 * ServedCatalog#tableExists}: from the in-memory pointer, never waiting on a rebuild) and where it
 * hides its scratch tables (listings filtered before they are paged; such a name is never found,
 * never created).
 */
final class CatalogRoutes {
    private final ServedCatalog served;
    private final boolean writes;

    CatalogRoutes(ServedCatalog served, boolean writes) {
        this.served = served;
        this.writes = writes;
    }

    /** The response of {@code route}; null for the routes that answer 204. */
    RESTResponse serve(RestRoute route, Map<String, String> vars, Map<String, String> query, Object body) {
        switch (route) {
            case CONFIG:
                return config();
            case LIST_NAMESPACES:
                return listNamespaces(query);
            case CREATE_NAMESPACE:
                return CatalogHandlers.createNamespace(served.namespaces(), (CreateNamespaceRequest) body);
            case NAMESPACE_EXISTS:
                CatalogHandlers.namespaceExists(served.namespaces(), namespace(vars));
                return null;
            case LOAD_NAMESPACE:
                return CatalogHandlers.loadNamespace(served.namespaces(), namespace(vars));
            case DROP_NAMESPACE:
                CatalogHandlers.dropNamespace(served.namespaces(), namespace(vars));
                return null;
            case UPDATE_NAMESPACE:
                return CatalogHandlers.updateNamespaceProperties(
                        served.namespaces(), namespace(vars), (UpdateNamespacePropertiesRequest) body);
            case LIST_TABLES:
                return listTables(namespace(vars), query);
            case CREATE_TABLE:
                return createTable(namespace(vars), (CreateTableRequest) body);
            case TABLE_EXISTS:
                if (!served.tableExists(table(vars))) {
                    throw new NoSuchTableException("Table does not exist: %s", table(vars));
                }
                return null;
            case LOAD_TABLE:
                return LoadTableResponse.builder()
                        .withTableMetadata(served.currentMetadata(table(vars)))
                        .build();
            case UPDATE_TABLE:
                return CatalogHandlers.updateTable(served.catalog(), visible(table(vars)), (UpdateTableRequest) body);
            case DROP_TABLE:
                TableIdentifier dropped = visible(table(vars));
                if ("true".equalsIgnoreCase(query.get("purgeRequested"))) {
                    CatalogHandlers.purgeTable(served.catalog(), dropped);
                } else {
                    CatalogHandlers.dropTable(served.catalog(), dropped);
                }
                return null;
            case REGISTER_TABLE:
                RegisterTableRequest register = (RegisterTableRequest) body;
                register.validate();
                notReserved(TableIdentifier.of(namespace(vars), register.name()));
                return CatalogHandlers.registerTable(served.catalog(), namespace(vars), register);
            case RENAME_TABLE:
                RenameTableRequest rename = (RenameTableRequest) body;
                visible(rename.source());
                notReserved(rename.destination());
                CatalogHandlers.renameTable(served.catalog(), rename);
                return null;
            case REPORT_METRICS:
                return null; // read and checked as a ReportMetricsRequest; floe keeps no client metrics
            default:
                throw new IllegalStateException("no handler for route " + route);
        }
    }

    private ConfigResponse config() {
        List<Endpoint> endpoints = new ArrayList<>();
        for (RestRoute route : RestRoute.values()) {
            if (route.endpoint() != null && (writes || !route.mutates())) {
                endpoints.add(route.endpoint());
            }
        }
        return ConfigResponse.builder().withEndpoints(endpoints).build();
    }

    private ListNamespacesResponse listNamespaces(Map<String, String> query) {
        String parent = query.get("parent");
        Namespace of = NamespaceParams.fromQuery(parent);
        List<Namespace> all =
                CatalogHandlers.listNamespaces(served.namespaces(), of).namespaces();
        Page<Namespace> page = Page.of(all, query.get("pageToken"), query.get("pageSize"));
        return ListNamespacesResponse.builder()
                .addAll(page.items())
                .nextPageToken(page.next())
                .build();
    }

    private ListTablesResponse listTables(Namespace namespace, Map<String, String> query) {
        List<TableIdentifier> visible = CatalogHandlers.listTables(served.catalog(), namespace).identifiers().stream()
                .filter(table -> !served.hides(table))
                .collect(Collectors.toList());
        Page<TableIdentifier> page = Page.of(visible, query.get("pageToken"), query.get("pageSize"));
        return ListTablesResponse.builder()
                .addAll(page.items())
                .nextPageToken(page.next())
                .build();
    }

    private LoadTableResponse createTable(Namespace namespace, CreateTableRequest request) {
        request.validate();
        notReserved(TableIdentifier.of(namespace, request.name()));
        return request.stageCreate()
                ? CatalogHandlers.stageTableCreate(served.catalog(), namespace, request)
                : CatalogHandlers.createTable(served.catalog(), namespace, request);
    }

    /** {@code table}, unless the served catalog hides it: then it does not exist. */
    private TableIdentifier visible(TableIdentifier table) {
        if (served.hides(table)) {
            throw new NoSuchTableException("Table does not exist: %s", table);
        }
        return table;
    }

    private void notReserved(TableIdentifier table) {
        if (served.hides(table)) {
            throw new IllegalArgumentException("Table name " + table + " is reserved for floe's rebuilds"
                    + " (a name ending in __c and digits): choose another name");
        }
    }

    static Namespace namespace(Map<String, String> vars) {
        return NamespaceParams.fromPath(vars.get("namespace"));
    }

    static TableIdentifier table(Map<String, String> vars) {
        return TableIdentifier.of(namespace(vars), RESTUtil.decodeString(vars.get("table")));
    }
}
