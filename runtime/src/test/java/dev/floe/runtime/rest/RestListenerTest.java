package dev.floe.runtime.rest;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The socket the agent binds at start, before the host has opened the catalog it will serve. */
class RestListenerTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private int status(RestListener listener, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(listener.uri() + "v1/config"));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    @Test
    void beforeACatalogIsAttachedItAnswers503AndStill401WithoutTheToken() throws Exception {
        try (RestListener listener = RestListener.open(RestSettings.readOnly(0).withToken("t"))) {
            assertThat(listener.port()).isPositive();
            assertThat(listener.uri()).isEqualTo("http://127.0.0.1:" + listener.port() + "/");
            assertThat(status(listener, null)).isEqualTo(401);
            assertThat(status(listener, "Bearer t")).isEqualTo(503);
            assertThat(listener.attach(exchange -> {
                        exchange.sendResponseHeaders(204, -1);
                        exchange.close();
                    }))
                    .isTrue();
            assertThat(listener.attach(exchange -> exchange.close()))
                    .as("the first attached is served")
                    .isFalse();
            assertThat(status(listener, "Bearer t")).isEqualTo(204);
        }
    }

    /**
     * Clients that send half a request and stall, one per thread: the server drops them after its
     * request limit (2 s in this module's tests, {@code sun.net.httpserver.maxReqTime}; 30 s by
     * default) and serves the next request. Without a limit the request below never gets a thread.
     */
    @Test
    void clientsThatStallMidRequestLoseTheirConnectionNotTheEndpoint() throws Exception {
        assertThat(System.getProperty("sun.net.httpserver.maxReqTime")).isEqualTo("2");
        try (RestListener listener = RestListener.open(RestSettings.readOnly(0))) {
            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < RestListener.THREADS + 1; i++) {
                    Socket socket = new Socket(InetAddress.getLoopbackAddress(), listener.port());
                    socket.getOutputStream().write("GET /v1/config HTTP/1.1\r\nHost: x\r\n".getBytes(US_ASCII));
                    socket.getOutputStream().flush();
                    stalled.add(socket);
                }
                HttpRequest request = HttpRequest.newBuilder(URI.create(listener.uri() + "v1/config"))
                        .timeout(Duration.ofMinutes(1))
                        .build();
                assertThat(http.send(request, HttpResponse.BodyHandlers.discarding())
                                .statusCode())
                        .isEqualTo(503);
                for (Socket socket : stalled) {
                    socket.setSoTimeout((int) Duration.ofMinutes(1).toMillis());
                    assertThat(endOfStream(socket))
                            .as("the server closed the stalled connection")
                            .isTrue();
                }
            } finally {
                for (Socket socket : stalled) {
                    socket.close();
                }
            }
        }
    }

    /** Reads until the stream ends (true) or the socket is reset (also true: closed by the server). */
    private static boolean endOfStream(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            while (in.read() != -1) {
                // a response to a half request would be a failure: the test then sees no end
            }
            return true;
        } catch (SocketException reset) {
            return true;
        }
    }
}
