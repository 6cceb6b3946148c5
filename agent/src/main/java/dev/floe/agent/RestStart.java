package dev.floe.agent;

import dev.floe.runtime.rest.RestListener;
import dev.floe.runtime.rest.RestSettings;
import java.io.IOException;

/**
 * Binds the REST catalog endpoint when the agent starts, so that the start line can say where it
 * listens (the ephemeral port too); the guard of the class loader whose MapDbCatalog it serves
 * attaches the handler later ({@link RestAttachment}). A port that cannot be had is one error line:
 * floe guards on without the endpoint, and the host runs on.
 */
final class RestStart {
    private RestStart() {}

    /** The bound listener, or null when the endpoint is off or cannot listen (said in one line). */
    static RestListener open(RestSettings settings) {
        if (settings == null) {
            return null;
        }
        try {
            java.util.List<String> limits = RestListener.limitSlowClients();
            RestListener listener = RestListener.open(settings);
            if (!limits.isEmpty()) {
                AgentLog.info(
                        "the REST catalog endpoint drops clients that stall: floe set " + String.join(" and ", limits)
                                + " (seconds; they apply to every com.sun.net.httpserver server of this JVM; set them with -D"
                                + " to choose others)");
            }
            Runtime.getRuntime().addShutdownHook(new Thread(listener::close, "floe-rest-exit"));
            return listener;
        } catch (IOException | RuntimeException | LinkageError e) {
            AgentLog.error("floe.rest.port is " + settings.port() + " and floe.rest.bind " + settings.bind()
                    + ", where the REST catalog endpoint cannot listen (" + e + "): choose a free port (0: an"
                    + " ephemeral one) and an address of this machine. floe guards on without the endpoint");
            return null;
        }
    }

    /** What the start line says of the endpoint. */
    static String describe(RestSettings settings, RestListener listener) {
        if (settings == null) {
            return "";
        }
        if (listener == null) {
            return "; the REST catalog endpoint is not running (see the error above)";
        }
        return "; serves the Iceberg REST catalog at " + listener.uri() + " (" + settings.describeAccess() + ")";
    }
}
