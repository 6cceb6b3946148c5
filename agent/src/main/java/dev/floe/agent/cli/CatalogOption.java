package dev.floe.agent.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --catalog <catalog.properties>}: the same file the host loads its catalog from. */
final class CatalogOption {
    @Option(
            names = "--catalog",
            required = true,
            paramLabel = "<catalog.properties>",
            description = "The host's catalog properties file (catalog-impl=dev.floe.catalog.MapDbCatalog, warehouse,"
                    + " uri, ...). Relative paths in it are resolved against the working directory.")
    Path file;
}
