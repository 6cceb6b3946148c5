package dev.floe.runtime.rebuild;

import dev.floe.catalog.FloeStateFile;
import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.seam.FloeState;
import dev.floe.runtime.seam.IcebergRebuildCatalog;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.testing.TestTables;
import dev.floe.runtime.upkeep.Reclaimer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/** One catalog a history test's table lives in, and how floe rebuilds it there and reclaims at once. */
interface HistorySide {
    TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    Catalog catalog();

    default CompactReport rebuild(RebuildSettings settings, CompactionProbe probe) {
        return rebuild(settings, probe, Prune.NONE);
    }

    CompactReport rebuild(RebuildSettings settings, CompactionProbe probe, Prune prune);

    default Table table() {
        return catalog().loadTable(EVENTS);
    }

    /** floe's own catalog under {@code root}: rebuilds swap. */
    static HistorySide mapDb(Path root, List<AutoCloseable> opened) {
        MapDbCatalog catalog = TestTables.catalog(root.resolve("mapdb"));
        opened.add(catalog);
        return of(catalog, new MapDbRebuildCatalog(catalog));
    }

    /** A JDBC catalog on SQLite under {@code root}, floe's records in a state file: rebuilds commit in place. */
    static HistorySide jdbc(Path root, List<AutoCloseable> opened) {
        FloeStateFile state = FloeStateFile.open(root.resolve("floe-state.db"));
        JdbcCatalog jdbc = TestTables.sqliteJdbc(root, "ingest");
        opened.add(state);
        opened.add(jdbc);
        return of(jdbc, new IcebergRebuildCatalog(jdbc, FloeState.of(state)));
    }

    private static HistorySide of(Catalog catalog, RebuildCatalog rebuildCatalog) {
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
        return new HistorySide() {
            public Catalog catalog() {
                return catalog;
            }

            public CompactReport rebuild(RebuildSettings settings, CompactionProbe probe, Prune prune) {
                CompactReport report = new Compactor(
                                settings, new WriterGate(), new HandleRegistry(0), probe, Clock.systemUTC())
                        .compactTable(rebuildCatalog, EVENTS, prune);
                new Reclaimer(rebuildCatalog).runAll(); // what the guard's thread does once the grace has passed
                return report;
            }
        };
    }
}
