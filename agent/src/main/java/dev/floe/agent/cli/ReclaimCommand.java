package dev.floe.agent.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "reclaim",
        mixinStandardHelpOptions = true,
        description = {
            "Run the reclaim jobs that are due (all of them with --now) and print what was deleted.",
            "A job deletes the files only a rebuilt table's retired metadata references, by reference,"
                    + " never a file a live table uses."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ok (also when nothing was due)",
            "1:failed",
            "2:usage error",
            "3:catalog in use, or floe's state file",
            "4:no catalog file",
            "5:no Iceberg on the class path"
        })
final class ReclaimCommand extends HostCommand {
    @Mixin
    CatalogOption catalog;

    @Mixin
    ConfigOption config;

    @Option(
            names = "--now",
            description = "Run every job, due or not: for when no reader can still be using the old tables.")
    boolean now;

    @Override
    int run() {
        return MaintenanceRun.reclaim(this);
    }
}
