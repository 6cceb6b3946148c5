package dev.floe.agent.cli;

import java.util.concurrent.Callable;

/** A command that needs the host's libraries (Iceberg, Parquet, Hadoop): checked before it runs. */
abstract class HostCommand implements Callable<Integer> {
    @Override
    public final Integer call() {
        FloeCli.requireHostLibraries();
        return run();
    }

    /** The command itself; its exit code. */
    abstract int run();
}
