package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Four appenders, two scanning readers, rebuilds every hundred snapshots, in one real JVM. */
class ConcurrencyIT {
    static final int WRITERS = 4;
    /** 600 commits in all: six rebuilds at the trigger of a hundred. */
    static final int COMMITS_EACH = 150;

    static final int ROWS_PER_COMMIT = 2;

    @TempDir
    Path dir;

    @Test
    void writersAndReadersNeverSeeALossAGapOrAnError() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path config = dir.resolve("floe.properties");
        // the grace outlasts any one scan even on a loaded machine: a scan longer than the grace, of a
        // table loaded before a swap, may find retired files deleted (documented, not a loss)
        Files.writeString(config, "floe.trigger.snapshots=100\nfloe.trigger.min-interval=0s\nfloe.reclaim.grace=30s\n");
        String classPath = Path.of("target", "test-classes").toAbsolutePath() + File.pathSeparator + Jvm.SAMPLES_JAR;

        Jvm.Run run = Jvm.run(
                20,
                dir.resolve("host.log"),
                List.of(Jvm.agentArg(config)),
                classPath,
                ConcurrentHost.class.getName(),
                warehouse.toString(),
                Integer.toString(WRITERS),
                Integer.toString(COMMITS_EACH),
                Integer.toString(ROWS_PER_COMMIT),
                "2");

        assertThat(run.exitCode()).as(run.output()).isZero();
        Map<String, String> result = run.result();
        assertThat(result)
                .containsEntry("commits", Integer.toString(WRITERS * COMMITS_EACH))
                .containsEntry("errors", "0")
                .containsEntry("missing", "0")
                .containsEntry("decreases", "0");
        assertThat(Long.parseLong(result.get("scans"))).isPositive();
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();

        Set<Long> acked = new HashSet<>();
        run.lines("acked ").forEach(line -> {
            String[] parts = line.split(" ");
            for (long id = Long.parseLong(parts[1]); id < Long.parseLong(parts[1]) + Long.parseLong(parts[2]); id++) {
                acked.add(id);
            }
        });
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("check", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
        try (catalog) {
            Table table = catalog.loadTable(CrashHost.EVENTS);
            List<Long> ids = new ArrayList<>();
            try (CloseableIterable<Record> rows =
                    IcebergGenerics.read(table).select("id").build()) {
                rows.forEach(r -> ids.add((Long) r.getField("id")));
            }
            assertThat(acked).hasSize(WRITERS * COMMITS_EACH * ROWS_PER_COMMIT);
            assertThat(ids).hasSize(WRITERS * COMMITS_EACH * ROWS_PER_COMMIT);
            assertThat(new HashSet<>(ids)).isEqualTo(acked);
        }
    }
}
