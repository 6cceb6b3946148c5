package dev.floe.agent.cli;

import dev.floe.agent.AgentConfig;
import dev.floe.agent.ConfigException;
import java.nio.file.Path;
import java.util.Properties;
import picocli.CommandLine.Option;

/** {@code --config <floe.properties>}: the agent's configuration, for its rebuild settings. */
final class ConfigOption {
    @Option(
            names = "--config",
            paramLabel = "<floe.properties>",
            description =
                    "The agent's configuration file (-javaagent:floe-agent.jar=<file>): its floe.rebuild.*, floe.history.* and"
                            + " floe.reclaim.grace apply. Default: built-in defaults and any -Dfloe.<key>=... of this JVM.")
    Path file;

    /** The configuration, with {@code overrides} (floe.* keys) over the file and -D values. */
    AgentConfig load(Properties overrides) {
        Properties system = new Properties();
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("floe.")) {
                system.setProperty(name, System.getProperty(name));
            }
        }
        // the CLI serves no endpoint: the agent's floe.rest.* keys (and a token file it cannot read) do not apply
        system.setProperty("floe.rest.port", "");
        system.putAll(overrides);
        AgentConfig config;
        try {
            config = AgentConfig.load(file == null ? null : file.toString(), system, FloeCli.class.getClassLoader());
        } catch (ConfigException e) {
            throw new FloeCli.CliException(FloeCli.USAGE, e.getMessage());
        }
        config.warnings().forEach(w -> System.err.println("floe: warning: " + w));
        return config;
    }
}
