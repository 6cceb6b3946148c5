package dev.floe.runtime.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
}
