package dev.floe.runtime.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildException;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableBusyException;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.seam.RebuildJournal;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.testing.FullDiskFileIO;
import dev.floe.runtime.testing.TestTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A rebuild that fails anywhere before its swap leaves the live table and the disk as they were. */
class FailureInjectionTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @TempDir
    Path root;

    MapDbCatalog catalog;
    List<String> content;
    String liveLocation;
    Set<String> filesBefore;

    @BeforeEach
    void open() {
        catalog = TestTables.catalog(root);
        catalog.createNamespace(Namespace.of("db"));
        Table table = catalog.createTable(EVENTS, TestTables.SIMPLE);
        for (int i = 0; i < 6; i++) {
            TestTables.append(table, TestTables.simpleRows(i * 4L, 4));
        }
        content = TestTables.fingerprints(table);
        liveLocation = catalog.metadataLocation(EVENTS);
        filesBefore = TestTables.filesOnDisk(root);
    }

    @AfterEach
    void close() throws Exception {
        catalog.close();
    }

    private Compactor failingAt(CompactionStep failAt) {
        CompactionProbe probe = (step, id) -> {
            if (step == failAt) {
                throw new IllegalStateException("injected failure at " + step);
            }
        };
        return new Compactor(
                RebuildSettings.defaults().with(s -> s.reclaimGrace = Duration.ZERO),
                new WriterGate(),
                new HandleRegistry(0),
                probe,
                Clock.systemUTC());
    }

    @ParameterizedTest
    @EnumSource(
            value = CompactionStep.class,
            names = {
                "PINNED",
                "SCRATCH_CREATED",
                "FILE_STARTED",
                "ROWS_WRITTEN",
                "MANIFEST_WRITTEN",
                "CAUGHT_UP",
                "SCRATCH_COMMITTED"
            })
    void failureBeforeTheSwapLeavesNoTrace(CompactionStep step) {
        assertThatThrownBy(() -> failingAt(step).compactTable(catalog, EVENTS, Prune.NONE))
                .hasMessageContaining("injected failure at " + step);

        assertUntouched();
    }

    @Test
    void pruneThatThrowsAbortsCleanly() {
        Prune explodes = row -> {
            if ((Long) row.getField("id") == 13L) {
                throw new IllegalArgumentException("cannot judge row 13");
            }
            return false;
        };

        assertThatThrownBy(() -> new Compactor(RebuildSettings.defaults()).compactTable(catalog, EVENTS, explodes))
                .isInstanceOf(RebuildException.class)
                .hasMessageContaining("live table is untouched")
                .hasRootCauseMessage("cannot judge row 13");

        assertUntouched();
    }

    @Test
    void swapThatLosesToASlippedCommitKeepsTheCommitAndStartsAgain() {
        Table host = catalog.loadTableUncached(EVENTS);
        int[] slipped = {0};
        CompactionProbe slipPastTheGateOnce = (step, id) -> {
            if (step == CompactionStep.SCRATCH_COMMITTED && slipped[0]++ == 0) {
                TestTables.append(host, TestTables.simpleRows(900, 2));
            }
        };
        Compactor compactor = new Compactor(
                RebuildSettings.defaults(),
                new WriterGate(),
                new HandleRegistry(0),
                slipPastTheGateOnce,
                Clock.systemUTC());

        CompactReport report = compactor.compactTable(catalog, EVENTS, Prune.NONE);

        assertThat(report.attempts()).isEqualTo(2);
        Table live = catalog.loadTableUncached(EVENTS);
        TestTables.rebuiltSnapshot(live);
        assertThat(TestTables.read(live))
                .hasSize(26)
                .anySatisfy(row -> assertThat(row.getField("id")).isEqualTo(900L));
        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
        assertThat(catalog.durableEntries(RebuildJournal.SECTION)).isEmpty();
    }

    @Test
    void swapThatLosesEveryTimeKeepsEveryCommitAndEndsBusy() {
        Table host = catalog.loadTableUncached(EVENTS);
        long[] next = {900};
        CompactionProbe slipPastTheGate = (step, id) -> {
            if (step == CompactionStep.SCRATCH_COMMITTED) {
                TestTables.append(host, TestTables.simpleRows(next[0], 2));
                next[0] += 2;
            }
        };
        Compactor compactor = new Compactor(
                RebuildSettings.defaults(),
                new WriterGate(),
                new HandleRegistry(0),
                slipPastTheGate,
                Clock.systemUTC());

        assertThatThrownBy(() -> compactor.compactTable(catalog, EVENTS, Prune.NONE))
                .isInstanceOf(TableBusyException.class);

        Table live = catalog.loadTableUncached(EVENTS);
        assertThat(live.snapshots()).hasSize(9);
        assertThat(TestTables.read(live)).hasSize(30);
        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
        assertThat(catalog.durableEntries(RebuildJournal.SECTION)).isEmpty();
        assertThat(catalog.durableEntries(ReclaimJob.SECTION)).isEmpty();
    }

    @Test
    void fullDiskMidRebuildLeavesNoTrace() throws Exception {
        catalog.close();
        catalog = TestTables.catalog(root, java.util.Map.of("io-impl", FullDiskFileIO.class.getName()));
        FullDiskFileIO.full = true;
        try {
            assertThatThrownBy(
                            () -> new Compactor(RebuildSettings.defaults()).compactTable(catalog, EVENTS, Prune.NONE))
                    .isInstanceOf(RebuildException.class)
                    .hasMessageContaining("live table is untouched")
                    .hasStackTraceContaining("No space left on device");
        } finally {
            FullDiskFileIO.full = false;
        }
        assertUntouched();
    }

    private void assertUntouched() {
        assertThat(catalog.metadataLocation(EVENTS)).isEqualTo(liveLocation);
        assertThat(TestTables.fingerprints(catalog.loadTableUncached(EVENTS))).isEqualTo(content);
        assertThat(catalog.listTables(Namespace.of("db"))).containsExactly(EVENTS);
        assertThat(TestTables.filesOnDisk(root)).isEqualTo(filesBefore);
        assertThat(catalog.durableEntries(RebuildJournal.SECTION)).isEmpty();
        assertThat(catalog.durableEntries(ReclaimJob.SECTION)).isEmpty();
    }
}
