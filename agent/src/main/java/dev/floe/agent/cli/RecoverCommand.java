package dev.floe.agent.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
        name = "recover",
        mixinStandardHelpOptions = true,
        description = {
            "Run the agent's start-up recovery now and print what it cleaned.",
            "Discards the scratch tables (and every file they wrote) of rebuilds a process left"
                    + " unfinished, then runs the reclaim jobs that are due."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ok (also when there was nothing to do)",
            "1:failed",
            "2:usage error",
            "3:catalog in use, or floe's state file",
            "4:no catalog file",
            "5:no Iceberg on the class path"
        })
final class RecoverCommand extends HostCommand {
    @Mixin
    CatalogOption catalog;

    @Mixin
    ConfigOption config;

    @Override
    int run() {
        return MaintenanceRun.recover(this);
    }
}
