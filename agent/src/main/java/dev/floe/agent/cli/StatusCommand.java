package dev.floe.agent.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = {
            "Show each table's snapshots, data files, metadata bytes, rows, last rebuild and pending reclaim jobs.",
            "Reads only. A data file is small when it is under a quarter of floe.rebuild.target-file-bytes"
                    + " (128 MiB with the default 512 MiB; see --config). The metadata bytes are the size of the"
                    + " current metadata file, as floe.trigger.metadata-bytes measures it."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ok",
            "1:failed",
            "2:usage error",
            "3:catalog in use, or floe's state file",
            "4:no catalog file, or no table matches",
            "5:no Iceberg on the class path"
        })
final class StatusCommand extends HostCommand {
    @Mixin
    CatalogOption catalog;

    @Mixin
    ConfigOption config;

    @Mixin
    RestOption rest;

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "<table-glob>",
            description =
                    "Only tables whose namespace.table matches, * any run of characters, ? one (e.g. 'db.*'). Default: every table.")
    String glob;

    @Option(names = "--json", description = "One JSON object on standard output, for scripts.")
    boolean json;

    @Override
    int run() {
        return StatusRun.run(this);
    }
}
