package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import java.nio.file.Path;
import java.util.Map;

/**
 * Installs the dispatcher behind {@link FloeBridge}, once {@link BridgeInjection} has put the bridge
 * in the bootstrap class loader. A class of its own: verifying it loads the bridge's classes, so it
 * must not be touched before they are there.
 */
final class BridgeInstall {
    private BridgeInstall() {}

    /**
     * @param restSlot attaches the REST endpoint's handler (the first attached is served); null when
     *     the endpoint is off
     */
    static void install(
            Path agentJar,
            Map<String, String> config,
            String source,
            java.util.function.BiPredicate<com.sun.net.httpserver.HttpHandler, com.sun.net.httpserver.HttpHandler>
                    restSlot) {
        FloeBridge.install(new LoaderGuards(agentJar, config, source, restSlot));
    }
}
