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

    static void install(Path agentJar, Map<String, String> config, String source) {
        FloeBridge.install(new LoaderGuards(agentJar, config, source));
    }
}
