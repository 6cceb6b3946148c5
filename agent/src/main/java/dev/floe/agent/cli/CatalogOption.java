package dev.floe.agent.cli;

import dev.floe.agent.AgentConfig;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --catalog <catalog.properties>}: the same file the host loads its catalog from; with {@code
 * --catalog-name} and {@code --state-file} for catalogs other than floe's own.
 */
final class CatalogOption {
    @Option(
            names = "--catalog",
            required = true,
            paramLabel = "<catalog.properties>",
            description = "The host's catalog properties file: catalog-impl=<class> (dev.floe.catalog.MapDbCatalog,"
                    + " org.apache.iceberg.jdbc.JdbcCatalog, ...) or type=jdbc|rest|hadoop|hive|glue|nessie, with the"
                    + " catalog's own properties (uri, warehouse, ...). Relative local warehouse and uri paths are"
                    + " resolved against the working directory.")
    Path file;

    @Option(
            names = "--catalog-name",
            paramLabel = "<name>",
            description = "The name the host gives the catalog (a JdbcCatalog keys its tables by it, and floe's"
                    + " records of a catalog are kept under it). Default: the file's 'name' property, else the"
                    + " file's name without its extension (ingest.properties: ingest). Not used for a MapDbCatalog.")
    String name;

    @Option(
            names = "--state-file",
            paramLabel = "<file>",
            description = "floe's state file, where the agent keeps its records (rebuild journals, reclaim jobs) of"
                    + " the tables of catalogs other than its own: the agent's floe.state.file. Relative to the"
                    + " working directory. Default: floe.state.file of --config (or -Dfloe.state.file), else"
                    + " floe-state.db. Not used for a MapDbCatalog, whose catalog file holds those records.")
    Path stateFile;

    /** The state file: {@code --state-file}, else the configuration's {@code floe.state.file}. */
    Path stateFile(AgentConfig config) {
        if (stateFile == null) {
            return config.settings().stateFile();
        }
        Path path;
        try {
            path = stateFile.toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new FloeCli.CliException(FloeCli.USAGE, "--state-file " + stateFile + " is not a valid path");
        }
        if (Files.isDirectory(path)) {
            throw new FloeCli.CliException(
                    FloeCli.USAGE,
                    "--state-file " + stateFile + " is a directory; name the file, e.g. --state-file "
                            + path.resolve("floe-state.db"));
        }
        return path;
    }
}
