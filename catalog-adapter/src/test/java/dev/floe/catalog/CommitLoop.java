package dev.floe.catalog;

import java.nio.file.Paths;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Child JVM of {@link CrashDurabilityTest}: commits appends to the existing {@code db.events} under
 * the root folder given as the first argument, forever, printing {@code committed <snapshot id>
 * <metadata location>} after each commit has returned. The test kills it at a random moment.
 */
public final class CommitLoop {
    private CommitLoop() {}

    public static void main(String[] args) {
        MapDbCatalog catalog = TestCatalogs.open(Paths.get(args[0]));
        String tag = args[1];
        TableIdentifier id = TableIdentifier.of(Namespace.of("db"), "events");
        Table table = catalog.loadTable(id);
        for (long i = 0; ; i++) {
            TestCatalogs.append(table, tag + "-" + i);
            System.out.println(
                    "committed " + table.currentSnapshot().snapshotId() + " " + catalog.metadataLocation(id));
            System.out.flush();
        }
    }
}
