package dev.floe.catalog;

import java.nio.file.Paths;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Child JVM of {@link CrashDurabilityTest}: creates {@code db.events} under the root folder given
 * as the first argument, commits as many appends as the second argument says, prints {@code
 * location <metadata location>} and halts at once: no close, no shutdown hooks, no flush of
 * anything but its own output.
 */
public final class CommitThenHalt {
    private CommitThenHalt() {}

    public static void main(String[] args) {
        MapDbCatalog catalog = TestCatalogs.open(Paths.get(args[0]));
        int commits = Integer.parseInt(args[1]);
        TableIdentifier id = TableIdentifier.of(Namespace.of("db"), "events");
        Table table = catalog.buildTable(id, TestCatalogs.SCHEMA).create();
        for (int i = 0; i < commits; i++) {
            TestCatalogs.append(table, "file-" + i);
        }
        System.out.println("location " + catalog.metadataLocation(id));
        System.out.println("snapshot " + table.currentSnapshot().snapshotId());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
