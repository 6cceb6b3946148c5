package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.testing.TestTables;
import dev.floe.runtime.upkeep.Reclaimer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A writer appending without pause while rebuilds run: every row lands exactly once. */
class ConcurrentAppendTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @TempDir
    Path root;

    @Test
    void everyAppendedRowIsPresentExactlyOnce() throws Exception {
        try (MapDbCatalog catalog = TestTables.catalog(root)) {
            catalog.createNamespace(Namespace.of("db"));
            catalog.createTable(EVENTS, TestTables.SIMPLE);
            WriterGate gate = new WriterGate();
            HandleRegistry handles = new HandleRegistry(16);
            Table writerHandle = catalog.loadTable(EVENTS);
            handles.track(TableKey.embedded(EVENTS), writerHandle);
            java.util.concurrent.atomic.AtomicInteger committed = new java.util.concurrent.atomic.AtomicInteger();
            // once the rows are written, the rebuild waits for one more host commit: every rebuild then
            // has an append that landed while it ran, which it must carry
            CompactionProbe awaitACommit = (step, id) -> {
                if (step == CompactionStep.ROWS_WRITTEN) {
                    int seen = committed.get();
                    while (committed.get() == seen) {
                        Thread.onSpinWait();
                    }
                }
            };
            Compactor compactor = new Compactor(
                    RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO),
                    gate,
                    handles,
                    awaitACommit,
                    Clock.systemUTC());

            AtomicLong nextId = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            int rowsPerCommit = 3;
            CompletableFuture<Integer> writer = CompletableFuture.supplyAsync(() -> {
                int commits = 0;
                while (!stop.get() || commits < 60) {
                    long first = nextId.getAndAdd(rowsPerCommit);
                    gate.enter(TableKey.embedded(EVENTS));
                    try {
                        TestTables.append(writerHandle, TestTables.simpleRows(first, rowsPerCommit));
                    } finally {
                        gate.exit(TableKey.embedded(EVENTS));
                    }
                    commits += 1;
                    committed.incrementAndGet();
                }
                return commits;
            });

            List<CompactReport> reports = new java.util.ArrayList<>();
            while (reports.size() < 4) {
                // a few host commits between rebuilds, counted, not timed
                int before = committed.get();
                while (committed.get() < before + 5) {
                    Thread.onSpinWait();
                }
                reports.add(compactor.compactTable(catalog, EVENTS, Prune.NONE));
                new Reclaimer(catalog).runDue(java.time.Instant.now());
            }
            stop.set(true);
            int commits = writer.get(2, TimeUnit.MINUTES);

            Table fresh = catalog.loadTableUncached(EVENTS);
            List<Long> ids = TestTables.read(fresh).stream()
                    .map(r -> (Long) r.getField("id"))
                    .sorted()
                    .collect(Collectors.toList());
            assertThat(commits).isGreaterThanOrEqualTo(60);
            assertThat(reports)
                    .allSatisfy(report -> assertThat(report.carriedFiles()).isPositive());
            assertThat(ids).hasSize(commits * rowsPerCommit);
            assertThat(ids)
                    .isEqualTo(LongStream.range(0, (long) commits * rowsPerCommit)
                            .boxed()
                            .collect(Collectors.toList()));
            assertThat(fresh.snapshots()).anyMatch(s -> s.summary().containsKey("floe.rebuild-of-snapshot"));
        }
    }
}
