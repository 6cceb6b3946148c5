package dev.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that dies without closing the catalog (halted, or killed mid-commit) loses nothing it
 * was told is committed, and leaves a catalog that opens and points at a metadata file that exists.
 * The writers are real child JVMs.
 */
class CrashDurabilityTest {
    private static final TableIdentifier EVENTS = TableIdentifier.of(Namespace.of("db"), "events");

    @TempDir
    Path root;

    private MapDbCatalog catalog;

    @AfterEach
    void close() throws IOException {
        if (catalog != null) {
            catalog.close();
        }
    }

    @Test
    @Timeout(60)
    void commitsBeforeAHaltAreThereAfterReopen() throws Exception {
        String location;
        long snapshot;
        try (ChildJvm child = ChildJvm.start(root.resolve("logs"), CommitThenHalt.class, root.toString(), "5")) {
            location = value(child.awaitLine(line -> line.startsWith("location "), Duration.ofSeconds(40)));
            snapshot =
                    Long.parseLong(value(child.awaitLine(line -> line.startsWith("snapshot "), Duration.ofSeconds(5))));
            assertThat(child.awaitExit(Duration.ofSeconds(20)))
                    .as("exit code" + child.describe())
                    .isZero();
        }

        catalog = TestCatalogs.open(root);

        assertThat(catalog.metadataLocation(EVENTS)).isEqualTo(location);
        assertThat(catalog.commitLog(EVENTS)).hasSize(6); // create + 5 appends
        assertThat(catalog.commitLog(EVENTS).lastEntry().getValue()).isEqualTo(location);
        Table table = catalog.loadTable(EVENTS);
        assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
        assertThat(table.snapshots()).hasSize(5);
    }

    @Test
    @Timeout(90)
    void killedMidCommitLoopLeavesALoadableTableWithEveryAcknowledgedCommit() throws Exception {
        catalog = TestCatalogs.open(root);
        catalog.createNamespace(EVENTS.namespace());
        catalog.buildTable(EVENTS, TestCatalogs.SCHEMA).create();
        catalog.close();
        catalog = null;

        long seed = Long.getLong("crash.seed", System.nanoTime());
        System.out.println("killedMidCommitLoop: seed " + seed + " (replay with -Dcrash.seed=" + seed + ")");
        java.util.Random random = new java.util.Random(seed);
        List<Long> acknowledged = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            List<String> printed;
            try (ChildJvm child =
                    ChildJvm.start(root.resolve("logs"), CommitLoop.class, root.toString(), "round" + round)) {
                // let it get going, then kill it after a random number of acknowledged commits: a moment
                // of its loop chosen by what it did, not by the clock
                int commits = 1 + random.nextInt(20);
                int[] seen = {0};
                child.awaitLine(line -> line.startsWith("committed ") && ++seen[0] >= commits, Duration.ofSeconds(40));
                child.kill();
                printed = child.lines();
            }
            for (String line : printed) {
                if (line.startsWith("committed ")) {
                    acknowledged.add(Long.parseLong(line.split(" ")[1]));
                }
            }

            catalog = TestCatalogs.open(root);
            String pointer = catalog.metadataLocation(EVENTS);
            assertThat(pointer).as("pointer after kill in round %d", round).isNotNull();
            assertThat(Files.isRegularFile(Paths.get(pointer)))
                    .as("metadata file %s named by the pointer exists", pointer)
                    .isTrue();
            assertThat(catalog.commitLog(EVENTS).lastEntry().getValue()).isEqualTo(pointer);
            Table table = catalog.loadTable(EVENTS);
            Set<Long> snapshots = StreamSupport.stream(table.snapshots().spliterator(), false)
                    .map(Snapshot::snapshotId)
                    .collect(Collectors.toSet());
            assertThat(snapshots)
                    .as("every commit acknowledged before the kill in round %d", round)
                    .containsAll(acknowledged);
            catalog.close();
            catalog = null;
        }
        assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(3);
    }

    private static String value(String line) {
        return line.substring(line.indexOf(' ') + 1);
    }
}
