package dev.floe.agent.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "compact",
        mixinStandardHelpOptions = true,
        description = {
            "Rebuild one table now and swap it into its name, as the agent does.",
            "The live rows stream into a few large ZSTD Parquet files with exactly one snapshot. Progress"
                    + " shows as a bar on a terminal and as plain lines otherwise; the report follows. Files only"
                    + " the old table references are deleted by a reclaim job after floe.reclaim.grace (see reclaim)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:rebuilt (or, with --dry-run, it could be)",
            "1:the rebuild failed or was refused; the table is as it was",
            "2:usage error",
            "3:catalog in use, or floe's state file",
            "4:no such table, or no catalog file",
            "5:no Iceberg on the class path"
        })
final class CompactCommand extends HostCommand {
    @Mixin
    CatalogOption catalog;

    @Mixin
    ConfigOption config;

    @Parameters(index = "0", paramLabel = "<table>", description = "The table, namespace.table (e.g. db.events).")
    String table;

    @Option(
            names = "--prune-class",
            paramLabel = "<class>",
            description = "A class implementing dev.floe.runtime.Prune (public no-argument constructor) that drops rows"
                    + " during the rebuild; put its jar on --classpath. Default: floe.rebuild.prune-class.")
    String pruneClass;

    @Option(
            names = "--full",
            description = "Rewrite every file, applying every delete, instead of only the small files and those whose"
                    + " deletes are due (settled files are otherwise kept as they are).")
    boolean full;

    @Option(names = "--dry-run", description = "Say what would happen (files, rows, bytes) and change nothing.")
    boolean dryRun;

    @Override
    int run() {
        return CompactRun.run(this);
    }
}
