package dev.floe.runtime.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.catalog.MapDbCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The endpoint's defences, over real HTTP: token, write switch, bad requests, loopback binding. */
class RestEndpointSecurityTest {
    static final String TOKEN = "s3cret-token";
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final TableIdentifier SCRATCH = TableIdentifier.of("db", "events__c123456789");
    static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    /** A request of every route the endpoint serves, and one it does not. */
    static final List<String[]> EVERY_ROUTE = List.of(
            new String[] {"GET", "v1/config", null},
            new String[] {"GET", "v1/namespaces", null},
            new String[] {"POST", "v1/namespaces", "{\"namespace\":[\"other\"]}"},
            new String[] {"HEAD", "v1/namespaces/db", null},
            new String[] {"GET", "v1/namespaces/db", null},
            new String[] {"DELETE", "v1/namespaces/db", null},
            new String[] {"POST", "v1/namespaces/db/properties", "{\"updates\":{\"a\":\"b\"}}"},
            new String[] {"GET", "v1/namespaces/db/tables", null},
            new String[] {"POST", "v1/namespaces/db/tables", "{}"},
            new String[] {"HEAD", "v1/namespaces/db/tables/events", null},
            new String[] {"GET", "v1/namespaces/db/tables/events", null},
            new String[] {"POST", "v1/namespaces/db/tables/events", "{}"},
            new String[] {"DELETE", "v1/namespaces/db/tables/events", null},
            new String[] {"POST", "v1/namespaces/db/register", "{}"},
            new String[] {"POST", "v1/tables/rename", "{}"},
            new String[] {"POST", "v1/namespaces/db/tables/events/metrics", "{}"},
            new String[] {"GET", "v1/no/such/route", null});

    static final List<String[]> MUTATING = List.of(
            new String[] {"POST", "v1/namespaces", "{\"namespace\":[\"other\"]}"},
            new String[] {"DELETE", "v1/namespaces/db", null},
            new String[] {"POST", "v1/namespaces/db/properties", "{\"updates\":{\"a\":\"b\"}}"},
            new String[] {"POST", "v1/namespaces/db/tables", "{}"},
            new String[] {"POST", "v1/namespaces/db/tables/events", "{}"},
            new String[] {"DELETE", "v1/namespaces/db/tables/events", null},
            new String[] {"POST", "v1/namespaces/db/register", "{}"},
            new String[] {"POST", "v1/tables/rename", "{}"});

    @TempDir
    Path temp;

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private MapDbCatalog backend;
    private String location;
    private RestServer server;

    @BeforeEach
    void open() {
        backend = new MapDbCatalog();
        backend.initialize(
                "backend",
                Map.of(
                        CatalogProperties.WAREHOUSE_LOCATION,
                        temp.resolve("warehouse").toString(),
                        MapDbCatalog.URI,
                        temp.resolve("catalog.db").toString()));
        backend.createNamespace(Namespace.of("db"), Map.of());
        location = backend.createTable(EVENTS, SCHEMA).location();
        backend.createTable(SCRATCH, SCHEMA);
    }

    @AfterEach
    void close() throws IOException {
        if (server != null) {
            server.close();
        }
        backend.close();
    }

    private void serve(RestSettings settings) throws IOException {
        server = RestServer.start(settings, MapDbServedCatalog.of(backend));
    }

    private HttpResponse<String> send(String method, String path, String body, String authorization)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.uri() + path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The error of an ErrorResponse body: its code, type and message. */
    private JsonNode error(HttpResponse<String> response) throws IOException {
        JsonNode error = json.readTree(response.body()).get("error");
        assertThat(error).as(response.body()).isNotNull();
        assertThat(error.get("code").asInt()).isEqualTo(response.statusCode());
        return error;
    }

    @Test
    void everyRouteIs401WithoutTheTokenOrWithAWrongOneAndShowsNoTableData() throws Exception {
        serve(RestSettings.readOnly(0).withWrites(true).withToken(TOKEN));
        for (String[] route : EVERY_ROUTE) {
            for (String authorization : new String[] {null, "Bearer wrong", "Basic " + TOKEN, TOKEN}) {
                HttpResponse<String> response = send(route[0], route[1], route[2], authorization);
                assertThat(response.statusCode())
                        .as(route[0] + " " + route[1] + " with " + authorization)
                        .isEqualTo(401);
                if (!route[0].equals("HEAD")) {
                    assertThat(error(response).get("type").asText()).isEqualTo("NotAuthorizedException");
                    assertThat(response.body()).doesNotContain(location).doesNotContain("events");
                }
            }
        }
        // nothing was changed by any of them
        assertThat(backend.tableExists(EVENTS)).isTrue();
        assertThat(backend.listNamespaces()).containsExactly(Namespace.of("db"));
        assertThat(send("GET", "v1/namespaces/db/tables/events", null, "Bearer " + TOKEN)
                        .statusCode())
                .isEqualTo(200);
    }

    @Test
    void everyMutatingRouteIs403WhenWritesAreOffAndChangesNothing() throws Exception {
        serve(RestSettings.readOnly(0));
        String before = backend.metadataLocation(EVENTS);
        for (String[] route : MUTATING) {
            HttpResponse<String> response = send(route[0], route[1], route[2], null);
            assertThat(response.statusCode()).as(route[0] + " " + route[1]).isEqualTo(403);
            assertThat(error(response).get("message").asText()).contains("floe.rest.writes=true");
        }
        assertThat(backend.metadataLocation(EVENTS)).isEqualTo(before);
        assertThat(backend.listNamespaces()).containsExactly(Namespace.of("db"));
        assertThat(backend.loadNamespaceMetadata(Namespace.of("db"))).isEmpty();
        // the config names only the routes it serves
        assertThat(send("GET", "v1/config", null, null).body())
                .contains("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}")
                .doesNotContain("\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}\"")
                .doesNotContain("DELETE");
    }

    @Test
    void badRequestsAreClean4xxAndTheEndpointServesOn() throws Exception {
        serve(RestSettings.readOnly(0).withWrites(true).withMaxBodyBytes(1024));

        HttpResponse<String> malformed = send("POST", "v1/namespaces", "{\"namespace\": [", null);
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(error(malformed).get("message").asText()).startsWith("Malformed request body");

        HttpResponse<String> wrongShape = send("POST", "v1/namespaces", "{\"namespace\": 42}", null);
        assertThat(wrongShape.statusCode()).isEqualTo(400);
        HttpResponse<String> nothing = send("POST", "v1/namespaces", null, null);
        assertThat(nothing.statusCode()).isEqualTo(400);
        // an empty object parses, but is none of these requests: Iceberg's own validation says what is
        // missing (an empty commit, {} to a table, is a commit of nothing, as Iceberg's own server takes it)
        for (String path :
                List.of("v1/namespaces", "v1/namespaces/db/tables", "v1/namespaces/db/register", "v1/tables/rename")) {
            HttpResponse<String> empty = send("POST", path, "{}", null);
            assertThat(empty.statusCode()).as(path + ": " + empty.body()).isEqualTo(400);
            assertThat(error(empty).get("message").asText()).as(path).isNotBlank();
        }

        HttpResponse<String> unknown = send("GET", "v1/no/such/route", null, null);
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(error(unknown).get("message").asText()).contains("No route for request");
        assertThat(send("PUT", "v1/namespaces", "{}", null).statusCode()).isEqualTo(400);

        // a body past the limit, its length unknown beforehand (chunked)
        HttpResponse<String> chunked = http.send(
                HttpRequest.newBuilder(URI.create(server.uri() + "v1/namespaces"))
                        .POST(HttpRequest.BodyPublishers.ofInputStream(
                                () -> new java.io.ByteArrayInputStream(new byte[4096])))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.statusCode()).isEqualTo(413);
        assertThat(error(chunked).get("type").asText()).isEqualTo("PayloadTooLargeException");

        // a body declared past the limit is refused before it is read
        assertThat(rawStatusLine("POST /v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 17000000\r\n\r\n"))
                .startsWith("HTTP/1.1 413");

        assertThat(backend.listNamespaces()).containsExactly(Namespace.of("db"));
        assertThat(send("GET", "v1/namespaces/db/tables/events", null, null).statusCode())
                .isEqualTo(200);
    }

    @Test
    void scratchTablesAreNeverServed() throws Exception {
        serve(RestSettings.readOnly(0).withWrites(true));
        HttpResponse<String> listed = send("GET", "v1/namespaces/db/tables", null, null);
        assertThat(listed.statusCode()).isEqualTo(200);
        assertThat(listed.body()).contains("\"events\"").doesNotContain("__c");
        assertThat(send("GET", "v1/namespaces/db/tables/" + SCRATCH.name(), null, null)
                        .statusCode())
                .isEqualTo(404);
        assertThat(send("HEAD", "v1/namespaces/db/tables/" + SCRATCH.name(), null, null)
                        .statusCode())
                .isEqualTo(404);
        assertThat(send("DELETE", "v1/namespaces/db/tables/" + SCRATCH.name(), null, null)
                        .statusCode())
                .isEqualTo(404);
        assertThat(backend.tableExists(SCRATCH)).isTrue();
        String create = "{\"name\":\"t__c42\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":"
                + "[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}";
        HttpResponse<String> reserved = send("POST", "v1/namespaces/db/tables", create, null);
        assertThat(reserved.statusCode()).isEqualTo(400);
        assertThat(error(reserved).get("message").asText()).contains("reserved");
    }

    @Test
    void itListensOnLoopbackOnlyByDefault() throws Exception {
        serve(RestSettings.readOnly(0));
        Optional<InetAddress> other = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(NetworkInterface::inetAddresses)
                .filter(address -> address instanceof Inet4Address && !address.isLoopbackAddress())
                .findFirst();
        assumeThat(other).as("this machine has a non-loopback IPv4 address").isPresent();

        assertThat(send("GET", "v1/config", null, null).statusCode()).isEqualTo(200);
        try (Socket socket = new Socket()) {
            assertThatThrownBy(() -> socket.connect(new InetSocketAddress(other.get(), server.port()), 5000))
                    .isInstanceOf(ConnectException.class);
        }
    }

    /** Sends {@code request} as it is over a plain socket and returns the response's status line. */
    private String rawStatusLine(String request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != -1 && c != '\r'; c = in.read()) {
                line.append((char) c);
            }
            return line.toString();
        }
    }
}
