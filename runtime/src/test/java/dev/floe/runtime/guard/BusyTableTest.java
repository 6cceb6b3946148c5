package dev.floe.runtime.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.rebuild.CompactReport;
import dev.floe.runtime.rebuild.Compactor;
import dev.floe.runtime.rebuild.StreamRaceWatch;
import dev.floe.runtime.testing.CatalogFixture;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;

/**
 * A table whose commits cannot be rebased (here: property changes, as a schema or spec change would
 * be) cannot be rebuilt while they keep coming: each attempt stops as soon as the first such commit
 * is seen, and the guard backs off (doubling, capped) instead of re-reading the table without a
 * pause.
 */
class BusyTableTest extends CatalogFixture {

    /** Changes a property of the table through {@code host}: a commit a rebuild does not rebase. */
    private static void changeAProperty(Table host) {
        host.refresh();
        host.updateProperties().set("touched", Long.toString(System.nanoTime())).commit();
    }

    @Test
    void anAttemptStopsAtTheFirstConflictingCommitInsteadOfStreamingTheWholeTable() {
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int i = 0; i < 5; i++) {
            TestTables.append(table, TestTables.simpleRows(i * 10_000L, 10_000));
        }
        Table host = catalog.loadTableUncached(EVENTS);
        AtomicLong seen = new AtomicLong();
        AtomicLong seenWhenRaced = new AtomicLong(-1);
        Prune raceOnce = row -> {
            if (seen.incrementAndGet() == 1_000) {
                changeAProperty(host); // lands while the first attempt streams
                seenWhenRaced.set(seen.get());
            }
            return false;
        };

        CompactReport report = new Compactor(RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO))
                .compactTable(catalog, EVENTS, raceOnce);

        assertThat(report.attempts()).isEqualTo(2);
        // the first attempt read at most one more check interval past the commit, not 50,000 rows
        long firstAttempt = seen.get() - report.rows();
        assertThat(firstAttempt).isLessThanOrEqualTo(seenWhenRaced.get() + StreamRaceWatch.EVERY_ROWS);
        assertThat(report.rows()).isEqualTo(50_000);
        assertThat(TestTables.read(catalog.loadTableUncached(EVENTS))).hasSize(50_000);
    }

    @Test
    void aTableBusyEveryAttemptIsLeftAloneForADoublingCappedWhile() throws Exception {
        MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
        AtomicBoolean racing = new AtomicBoolean(true);
        AtomicInteger attempts = new AtomicInteger();
        Table host = catalog.createTable(EVENTS, TestTables.SIMPLE);
        // the prune is created once per rebuild; its first row counts an attempt and, while racing,
        // commits a property change that makes the attempt start again
        java.util.function.Supplier<Prune> prune = () -> {
            AtomicBoolean first = new AtomicBoolean(true);
            return row -> {
                if (first.getAndSet(false)) {
                    attempts.incrementAndGet();
                    if (racing.get()) {
                        changeAProperty(catalog.loadTableUncached(EVENTS));
                    }
                }
                return false;
            };
        };
        GuardSettings settings = TestTables.guardSettings(
                        4,
                        RebuildSettings.defaults()
                                .with(s -> s.reclaimGrace = Duration.ZERO)
                                .with(s -> s.maxAttempts = 1),
                        prune,
                        false)
                .withBusyBackoff(Duration.ofMinutes(1), Duration.ofMinutes(3));
        Guard guard = new Guard(settings, clock, ",test=" + System.nanoTime());
        try {
            long id = 0;
            for (int i = 0; i < 4; i++) {
                guardedAppend(guard, host, id++);
            }
            guard.awaitIdle(Duration.ofMinutes(1));
            assertThat(attempts).hasValue(1);
            assertThat(guard.metrics(EVENTS).getBusyStreak()).isEqualTo(1);
            assertThat(guard.metrics(EVENTS).getBusyUntil()).isEqualTo("2026-12-01T00:01:00Z");
            assertThat(guard.getErrors()).as("a busy table is no error").isZero();

            // within the back-off, commits over the trigger start no rebuild
            for (int i = 0; i < 3; i++) {
                guardedAppend(guard, host, id++);
            }
            guard.awaitIdle(Duration.ofMinutes(1));
            assertThat(attempts).hasValue(1);

            // after it, the next commit tries again; busy again, the wait doubles, then is capped
            clock.advance(Duration.ofSeconds(61));
            guardedAppend(guard, host, id++);
            guard.awaitIdle(Duration.ofMinutes(1));
            assertThat(attempts).hasValue(2);
            assertThat(guard.metrics(EVENTS).getBusyStreak()).isEqualTo(2);
            assertThat(guard.metrics(EVENTS).getBusyUntil()).isEqualTo("2026-12-01T00:03:01Z");
            clock.advance(Duration.ofMinutes(3));
            guardedAppend(guard, host, id++);
            guard.awaitIdle(Duration.ofMinutes(1));
            assertThat(attempts).hasValue(3);
            assertThat(guard.metrics(EVENTS).getBusyUntil()).isEqualTo("2026-12-01T00:07:01Z");

            // once the table can be rebuilt, it is, and the streak ends
            racing.set(false);
            clock.advance(Duration.ofMinutes(3));
            guardedAppend(guard, host, id++);
            guard.awaitIdle(Duration.ofMinutes(1));
            assertThat(attempts).hasValue(4);
            assertThat(guard.metrics(EVENTS).getRebuilds()).isEqualTo(1);
            assertThat(guard.metrics(EVENTS).getBusyStreak()).isZero();
            assertThat(guard.metrics(EVENTS).getBusyUntil()).isEmpty();
            TestTables.rebuiltSnapshot(catalog.loadTableUncached(EVENTS));
            assertThat(guard.getErrors()).isZero();
        } finally {
            guard.close();
        }
    }

    @Test
    void backOffDoublesUpToItsCap() {
        GuardSettings settings =
                GuardSettings.defaults().withBusyBackoff(Duration.ofSeconds(30), Duration.ofMinutes(5));
        assertThat(settings.busyWait(1)).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.busyWait(2)).isEqualTo(Duration.ofMinutes(1));
        assertThat(settings.busyWait(4)).isEqualTo(Duration.ofMinutes(4));
        assertThat(settings.busyWait(5)).isEqualTo(Duration.ofMinutes(5));
        assertThat(settings.busyWait(500)).isEqualTo(Duration.ofMinutes(5));
        assertThatThrownBy(() -> GuardSettings.defaults().withBusyBackoff(Duration.ofMinutes(2), Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theGuardWorksOnItsOwnInstanceWhenTheHostClosesItsCatalogs() throws Exception {
        Guard guard = new Guard(
                TestTables.guardSettings(
                        4,
                        RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO),
                        () -> Prune.NONE,
                        false),
                Clock.systemUTC(),
                ",test=" + System.nanoTime());
        try {
            Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
            // as Flink does: a catalog opened, told to the guard, and closed at once
            MapDbCatalog shortLived = TestTables.catalog(root);
            guard.catalogOpened(shortLived);
            shortLived.close();
            // commits through a table whose catalog instance the host has closed meanwhile
            MapDbCatalog loader = TestTables.catalog(root);
            Table held = loader.loadTable(EVENTS);
            loader.close();
            for (int i = 0; i < 4; i++) {
                long wait = guard.beforeCommit(EVENTS);
                TestTables.append(held, TestTables.simpleRows(i * 2L, 2));
                TableMetadata committed =
                        ((HasTableOperations) held).operations().current();
                guard.afterCommit(
                        (dev.floe.catalog.MapDbTableOperations) ((HasTableOperations) held).operations(),
                        committed,
                        true,
                        wait);
            }
            guard.awaitIdle(Duration.ofMinutes(1));

            assertThat(guard.getErrors()).as(guard.getLastError()).isZero();
            assertThat(guard.metrics(EVENTS).getRebuilds()).isEqualTo(1);
            List<Record> rows = TestTables.read(catalog.loadTableUncached(EVENTS));
            assertThat(rows).hasSize(8);
            TestTables.rebuiltSnapshot(catalog.loadTableUncached(EVENTS));
            assertThat(catalog.isOpen())
                    .as("floe's own instances leave the host's open")
                    .isTrue();
            assertThat(table).isNotNull();
        } finally {
            guard.close();
        }
    }

    @Test
    void workForAFileNoInstanceHoldsOpenWaitsQuietly() throws Exception {
        Guard guard = new Guard(
                TestTables.guardSettings(500, RebuildSettings.defaults(), () -> Prune.NONE, false),
                Clock.systemUTC(),
                ",test=" + System.nanoTime());
        try {
            Path other = root.resolve("other");
            MapDbCatalog alone = TestTables.catalog(other);
            guard.catalogOpened(alone);
            alone.close(); // before the guard's thread gets to recover it
            guard.awaitIdle(Duration.ofMinutes(1));
            assertThat(guard.getErrors()).as(guard.getLastError()).isZero();
            assertThat(alone.openAnother())
                    .as("floe never reopens a file the host closed")
                    .isNull();
        } finally {
            guard.close();
        }
    }

    private static void guardedAppend(Guard guard, Table table, long id) {
        TestTables.guardedCommit(guard, table, () -> TestTables.append(table, TestTables.simpleRows(id, 1)));
    }

    /** A clock the test moves. */
    static final class MutableClock extends Clock {
        private volatile Instant now;

        MutableClock(Instant start) {
            this.now = start;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
