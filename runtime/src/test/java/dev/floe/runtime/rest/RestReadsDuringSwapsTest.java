package dev.floe.runtime.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table read over REST while its name is swapped to another table again and again, each swap
 * followed by the deletion of the metadata file it retired (as floe's swap does): every read finds
 * the table, whole.
 */
class RestReadsDuringSwapsTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final int SWAPS = 150;

    @TempDir
    Path temp;

    @Test
    void everyReadFindsTheTableWhileItIsSwapped() throws Exception {
        MapDbCatalog backend = new MapDbCatalog();
        backend.initialize(
                "backend",
                Map.of(
                        CatalogProperties.WAREHOUSE_LOCATION,
                        temp.resolve("warehouse").toString(),
                        MapDbCatalog.URI,
                        temp.resolve("catalog.db").toString()));
        backend.createNamespace(Namespace.of("db"), Map.of());
        backend.createTable(EVENTS, RestEndpointSecurityTest.SCHEMA);
        HttpClient http = HttpClient.newHttpClient();
        List<String> failures = new CopyOnWriteArrayList<>();
        AtomicInteger reads = new AtomicInteger();
        AtomicBoolean swapping = new AtomicBoolean(true);
        try (backend;
                RestServer server = RestServer.start(RestSettings.readOnly(0), MapDbServedCatalog.of(backend))) {
            HttpRequest load = HttpRequest.newBuilder(URI.create(server.uri() + "v1/namespaces/db/tables/events"))
                    .build();
            Thread reader = new Thread(() -> {
                while (swapping.get() || reads.get() < SWAPS) {
                    try {
                        HttpResponse<String> response = http.send(load, HttpResponse.BodyHandlers.ofString());
                        if (response.statusCode() != 200 || !response.body().contains("\"metadata-location\"")) {
                            failures.add(response.statusCode() + " " + response.body());
                        }
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                    reads.incrementAndGet();
                }
            });
            reader.start();
            try {
                for (int i = 0; i < SWAPS; i++) {
                    TableIdentifier scratch = TableIdentifier.of("db", "events__c" + i);
                    backend.createTable(scratch, RestEndpointSecurityTest.SCHEMA);
                    String retired = backend.swapTable(EVENTS, scratch);
                    backend.io().deleteFile(retired);
                }
            } finally {
                swapping.set(false);
                reader.join();
            }
        }
        assertThat(failures).isEmpty();
        assertThat(reads.get()).isGreaterThanOrEqualTo(SWAPS);
    }
}
