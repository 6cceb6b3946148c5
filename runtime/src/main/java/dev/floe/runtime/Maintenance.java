package dev.floe.runtime;

import dev.floe.catalog.MapDbCatalog;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The guard's housekeeping on its background thread, each task on floe's own instance of the
 * host's catalog ({@link HostCatalogs}): recovery when a catalog opens, the trim of metadata files
 * a table's log forgot, and reclaiming retired files whose grace window has passed.
 */
final class Maintenance {
    private final GuardThread thread;
    private final HostCatalogs catalogs;
    private final ErrorLog errors;
    private final Clock clock;
    private final int trimEvery;
    /** Catalog files with a recovery queued and not yet run: one at a time per file. */
    private final Set<Path> recoveryQueued = ConcurrentHashMap.newKeySet();

    Maintenance(GuardThread thread, HostCatalogs catalogs, ErrorLog errors, Clock clock, RebuildSettings settings) {
        this.thread = thread;
        this.catalogs = catalogs;
        this.errors = errors;
        this.clock = clock;
        this.trimEvery = settings.metadataVersions();
        Duration reclaimEvery = Duration.ofMillis(
                Math.max(1_000, Math.min(30_000, settings.reclaimGrace().toMillis() / 2)));
        thread.every(reclaimEvery, this::reclaimDue);
    }

    /** Recovery of a catalog the host opened (once per file while one is queued). */
    void catalogOpened(MapDbCatalog catalog) {
        catalogs.seen(catalog);
        Path file = catalog.catalogFile();
        if (file == null || !recoveryQueued.add(file)) {
            return;
        }
        thread.execute(() -> {
            recoveryQueued.remove(file);
            try {
                // a host that closed every instance of the file meanwhile reopens it later, and that
                // instance's recovery runs then
                catalogs.withOwn(catalog, own -> Recovery.run(own, clock.instant()));
            } catch (RuntimeException e) {
                errors.record("recovering catalog " + catalog.name(), e);
            }
        });
    }

    /**
     * Every {@link RebuildSettings#metadataVersions()} commits of a table, deletes the metadata files
     * its log has forgotten ({@link MetadataHistoryTrim}).
     */
    void committed(MapDbCatalog catalog, TableIdentifier table, GuardedTable state) {
        if (trimEvery <= 0
                || state.commitsSinceTrim.incrementAndGet() < trimEvery
                || !state.trimQueued.compareAndSet(false, true)) {
            return;
        }
        state.commitsSinceTrim.set(0);
        thread.execute(() -> {
            state.trimQueued.set(false);
            try {
                // with no instance of the file open, the next trim catches up
                catalogs.withOwn(catalog, own -> MetadataHistoryTrim.trim(own, table, state.lastCommitted));
            } catch (RuntimeException e) {
                errors.record("deleting forgotten metadata files of " + table, e);
            }
        });
    }

    /** Reclaims, once the grace window of a rebuild just swapped in has passed. */
    void reclaimAfter(Duration grace) {
        thread.schedule(this::reclaimDue, grace.plusMillis(50));
    }

    private void reclaimDue() {
        for (MapDbCatalog catalog : catalogs.perFile()) {
            try {
                catalogs.withOwn(catalog, own -> new Reclaimer(own).runDue(clock.instant()));
            } catch (Throwable e) {
                // never let a failure cancel the schedule
                errors.record("reclaiming retired files of catalog " + catalog.name(), e);
            }
        }
    }
}
