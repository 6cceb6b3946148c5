package dev.floe.runtime.guard;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.seam.FloeState;
import dev.floe.runtime.seam.IcebergRebuildCatalog;
import dev.floe.runtime.seam.RebuildCatalog;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalogs floe's background thread works on. Hosts open and close catalog instances as they
 * please (Flink opens one, loads a table and closes it at once, and again for each committer), so
 * floe never works on a host's instance: each task gets an instance of its own on the same file
 * ({@link MapDbCatalog#openAnother}), shared with the host's open instances and closed when the
 * task ends. A task for a file the host holds no instance of open does not run: nothing can
 * commit there, and the next instance the host opens brings the work back.
 */
final class HostCatalogs {
    private static final Logger LOG = LoggerFactory.getLogger(HostCatalogs.class);

    /** The newest instance seen per catalog file, weakly: floe never keeps a host's catalog alive. */
    private final Map<Path, WeakReference<MapDbCatalog>> newest = new ConcurrentHashMap<>();
    /** The shared catalogs seen, one per key (the first: every instance of one catalog is alike). */
    private final Map<String, SharedCatalog> shared = new ConcurrentHashMap<>();

    private final SharedState state;

    HostCatalogs(SharedState state) {
        this.state = state;
    }

    /** Notes a shared catalog the host initialised; returns the one known under its key. */
    SharedCatalog seen(SharedCatalog catalog, org.apache.iceberg.catalog.Catalog instance) {
        state.resume();
        SharedCatalog known = shared.putIfAbsent(catalog.key(), catalog);
        if (known == null) {
            return catalog;
        }
        known.hostOpened(instance);
        return known;
    }

    /**
     * Notes that the host closes {@code instance}: the shared catalog it belongs to no longer works on it.
     * Once the host has closed every shared catalog it opened (a host that ends closes them), the
     * state file is closed too, cleanly, instead of being left to the next start to replay as after a
     * crash; it opens again when work needs it. Waits, at most {@code bound} per catalog, for floe's
     * task at hand on that instance to end.
     */
    void closed(org.apache.iceberg.catalog.Catalog instance, java.time.Duration bound) {
        shared.values().forEach(catalog -> catalog.hostClosed(instance, bound));
        if (shared.values().stream().allMatch(SharedCatalog::closedByHost)) {
            state.suspend();
        }
    }

    /** The shared catalog known under {@code key}, or null. */
    SharedCatalog shared(String key) {
        return shared.get(key);
    }

    /** Every shared catalog seen. */
    List<SharedCatalog> shared() {
        return List.copyOf(shared.values());
    }

    /**
     * Runs {@code work} on a shared catalog as the rebuild sees it: floe's own instance and floe's
     * records of that catalog. Returns false, running nothing, when there is no instance to work on
     * or the state file cannot be had ({@code create}: made if absent; else absent means no work);
     * also when the host closed the instance while the work ran on it, which then failed: it waits
     * for the host's next instance, as work that finds none does.
     */
    boolean withShared(SharedCatalog catalog, boolean create, Consumer<RebuildCatalog> work) {
        if (catalog.closedByHost()) {
            return false; // before the state file: it stays closed until the host opens the catalog again
        }
        FloeState records = state.of(catalog, create);
        if (records == null) {
            return false;
        }
        return catalog.withInstance(
                instance -> work.accept(new IcebergRebuildCatalog(instance, catalog.key(), records)));
    }

    /**
     * floe's records of {@code catalog}, from the state file: empty when there is no state file, null
     * when there is one that cannot be read now (another process holds it, or it is suspended).
     */
    FloeState recordsOf(SharedCatalog catalog) {
        FloeState records = state.of(catalog, false);
        if (records == null && !state.exists()) {
            return FloeState.of(
                    section -> new java.util.TreeMap<>(),
                    (section, key, value) -> {
                        throw new IllegalStateException("no state file to record in");
                    },
                    (section, key) -> false);
        }
        return records;
    }

    /** Closes floe's own instances of shared catalogs and the state file. */
    void close() {
        shared.values().forEach(SharedCatalog::close);
        state.close();
    }

    /** Notes an instance the host opened or committed through. */
    void seen(MapDbCatalog catalog) {
        Path file = catalog.catalogFile();
        if (file != null) {
            WeakReference<MapDbCatalog> known = newest.get(file);
            if (known == null || known.get() != catalog) {
                newest.put(file, new WeakReference<>(catalog));
            }
        }
    }

    /**
     * Runs {@code work} on an instance of floe's own on {@code catalog}'s file, and closes it after.
     * Returns false, running nothing, when no instance of that file is open in this JVM.
     */
    boolean withOwn(MapDbCatalog catalog, Consumer<MapDbCatalog> work) {
        MapDbCatalog own = catalog.openAnother();
        if (own == null) {
            LOG.debug("floe: {} is closed and no other instance holds its file open; work on it waits", catalog);
            return false;
        }
        try {
            work.accept(own);
            return true;
        } finally {
            try {
                own.close();
            } catch (IOException | RuntimeException e) {
                LOG.debug("floe: closing floe's own instance of {} failed: {}", catalog, e.toString());
            }
        }
    }

    /** One instance per catalog file seen, the newest (open or not). */
    List<MapDbCatalog> perFile() {
        List<MapDbCatalog> catalogs = new ArrayList<>();
        newest.values().removeIf(reference -> reference.get() == null);
        for (WeakReference<MapDbCatalog> reference : newest.values()) {
            MapDbCatalog catalog = reference.get();
            if (catalog != null) {
                catalogs.add(catalog);
            }
        }
        return catalogs;
    }
}
