package dev.floe.agent.it;

import dev.floe.catalog.FloeStateFile;
import java.nio.file.Path;

/**
 * Child JVM of {@link CliIT}: a stand-in for a running ingest whose agent holds floe's state file.
 * Opens the state file given as its argument (creating it if absent), prints {@code ready}, and
 * holds it until its standard input ends (or it is killed).
 */
public final class HoldStateFile {
    private HoldStateFile() {}

    public static void main(String[] args) throws Exception {
        try (FloeStateFile state = FloeStateFile.open(Path.of(args[0]))) {
            System.out.println("ready");
            System.out.flush();
            while (System.in.read() != -1) {
                // hold the state file open
            }
        }
    }
}
