package dev.floe.runtime.guard;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.rebuild.RebuildRefusal;
import dev.floe.runtime.seam.FloeState;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.upkeep.ManifestMerge;
import dev.floe.runtime.upkeep.MetadataHistoryTrim;
import dev.floe.runtime.upkeep.Reclaimer;
import dev.floe.runtime.upkeep.Recovery;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The guard's housekeeping on its background threads, each task on floe's own instance of the
 * host's catalog ({@link HostCatalogs}): recovery when a catalog opens, the trim of metadata files
 * a table's log forgot and merging the manifests of the appends between two rebuilds on the
 * rebuilds' thread, reclaiming retired files whose grace window has passed on the second.
 */
final class Maintenance {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Maintenance.class);

    /** The least time between two measures of a shared catalog's table's metadata file. */
    static final Duration MEASURE_EVERY = Duration.ofSeconds(10);

    private final GuardThread thread;
    /** The second thread: reclaims, which read every kept snapshot's manifests, run there. */
    private final GuardThread apart;

    private final HostCatalogs catalogs;
    private final ErrorLog errors;
    private final Clock clock;
    private final int trimEvery;
    private final WriterGate gate;
    private final int mergeAt;
    /** Catalog files with a recovery queued and not yet run: one at a time per file. */
    private final Set<Path> recoveryQueued = ConcurrentHashMap.newKeySet();

    /**
     * @param gate the guard's gate, which a manifest merge commits under
     * @param mergeAt how many small data manifests a table gathers before they are merged (0: never)
     */
    Maintenance(
            GuardThread thread,
            GuardThread apart,
            HostCatalogs catalogs,
            ErrorLog errors,
            Clock clock,
            RebuildSettings settings,
            WriterGate gate,
            int mergeAt) {
        this.thread = thread;
        this.apart = apart;
        this.catalogs = catalogs;
        this.errors = errors;
        this.clock = clock;
        this.trimEvery = settings.metadataVersions();
        this.gate = gate;
        this.mergeAt = mergeAt;
        Duration reclaimEvery = Duration.ofMillis(
                Math.max(1_000, Math.min(30_000, settings.reclaimGrace().toMillis() / 2)));
        apart.every(reclaimEvery, this::reclaimDue);
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

    /**
     * Every {@code mergeAt} commits of a table since its last rebuild or merge, merges its small data
     * manifests ({@link ManifestMerge}) on its working catalog, unless a rebuild of it is queued
     * (which rewrites them all anyway).
     */
    void mergeIfDue(TableKey table, GuardedTable state) {
        if (mergeAt <= 0
                || state.commitsSinceMerge.incrementAndGet() < mergeAt
                || state.queued.get()
                || RebuildRefusal.of(state.lastCommitted) != null
                || !state.mergeQueued.compareAndSet(false, true)) {
            // a table floe does not rebuild is not merged either: nothing would retire what merges leave
            return;
        }
        WorkingCatalog working = state.working;
        thread.execute(() -> {
            try {
                state.commitsSinceMerge.set(0);
                if (state.queued.get()) {
                    return;
                }
                working.run(catalog -> {
                    ManifestMerge.Merged merged =
                            ManifestMerge.mergeIfDue(catalog.loadTableUncached(table.table()), table, gate, mergeAt);
                    if (merged != null) {
                        if (!table.catalog().isEmpty() && trimEvery > 0) {
                            // floe's commit is not observed like a host's: what it pushed out of a shared
                            // table's metadata log goes to the next trim here (floe's catalog logs it itself)
                            state.forgotten.addAll(MetadataHistoryTrim.forgottenBy(merged.base(), merged.committed()));
                        }
                        announce(table, state, merged.manifests());
                    }
                });
            } catch (RuntimeException e) {
                if (JvmExit.begun()) {
                    // nothing was committed, or all of it: a merge has no records to recover
                    LOG.info("floe: the manifest merge of {} stopped with the JVM's exit ({})", table, e.toString());
                } else {
                    errors.record("merging the manifests of " + table, e);
                }
            } finally {
                state.mergeQueued.set(false);
            }
        });
    }

    /** The first merge of a table is said at INFO, once; the others at DEBUG (one every few commits). */
    private void announce(TableKey table, GuardedTable state, int merged) {
        state.metrics.mergedManifests();
        if (state.metrics.getManifestMerges() == 1) {
            LOG.info(
                    "floe: merged the {} small data manifests of {} between rebuilds; it is merged again every {}"
                            + " commits (floe.merge.manifests), said at DEBUG, counted in JMX ManifestMerges",
                    merged,
                    table,
                    mergeAt);
        } else {
            LOG.debug("floe: merged {} data manifests of {}", merged, table);
        }
    }

    /** Recovery of a shared catalog, from floe's state file (when there is one), once per guard. */
    void sharedCatalogOpened(SharedCatalog catalog) {
        thread.execute(() -> {
            try {
                catalogs.withShared(catalog, false, own -> Recovery.run(own, clock.instant()));
            } catch (RuntimeException e) {
                errors.record("recovering " + catalog, e);
            }
        });
    }

    /**
     * Notes the metadata files a host commit of a shared catalog's table dropped from its log; every
     * {@link RebuildSettings#metadataVersions()} commits, deletes them, those the table's newest
     * version does not list (a file that is still listed, by another process's commit, stays).
     */
    void forgotten(SharedCatalog catalog, TableIdentifier table, GuardedTable state, List<String> files) {
        if (trimEvery <= 0) {
            return;
        }
        state.forgotten.addAll(files);
        if (state.commitsSinceTrim.incrementAndGet() < trimEvery || !state.trimQueued.compareAndSet(false, true)) {
            return;
        }
        state.commitsSinceTrim.set(0);
        thread.execute(() -> {
            state.trimQueued.set(false);
            List<String> due = new ArrayList<>();
            for (String file = state.forgotten.poll(); file != null; file = state.forgotten.poll()) {
                due.add(file);
            }
            try {
                boolean ran = onTable(catalog, table, ops -> {
                    List<String> free = notAwaitedByReclaim(catalog, table, due);
                    if (free == null) {
                        state.forgotten.addAll(due); // floe's records cannot be read now: the next trim catches up
                    } else {
                        MetadataHistoryTrim.deleteForgotten(ops.io(), free, ops.current());
                    }
                });
                if (!ran) {
                    state.forgotten.addAll(due); // the next trim catches up
                }
            } catch (RuntimeException e) {
                errors.record("deleting forgotten metadata files of " + table, e);
            }
        });
    }

    /**
     * Measures the metadata file of a shared catalog's table on the background thread, at most once
     * per {@link #MEASURE_EVERY}, and hands the growth it shows to {@code then}: the host's thread
     * never waits for an object store to say how large a file is.
     */
    void measureIfDue(SharedCatalog catalog, TableIdentifier table, GuardedTable state, Consumer<TableGrowth> then) {
        Instant last = state.measuredAt;
        if (last != null && clock.instant().isBefore(last.plus(MEASURE_EVERY))
                || !state.measureQueued.compareAndSet(false, true)) {
            return;
        }
        thread.execute(() -> {
            try {
                onTable(catalog, table, ops -> {
                    TableMetadata current = ops.current();
                    long bytes = ops.io()
                            .newInputFile(current.metadataFileLocation())
                            .getLength();
                    state.metadataBytes = bytes;
                    state.measuredAt = clock.instant();
                    then.accept(TableGrowth.of(current, bytes));
                });
            } catch (RuntimeException e) {
                errors.record("measuring the metadata of " + table, e);
            } finally {
                state.measureQueued.set(false);
            }
        });
    }

    /**
     * Those of {@code files} no reclaim job of {@code table} still has to read. A job recorded at an
     * in-place install lists the retired metadata files, which the rebuilt table's metadata log
     * still lists and host commits then push out; until the job is expanded (right after the install,
     * or, after a crash there, once its grace window has passed) it finds the retired manifests and
     * data files through them alone, and it deletes them itself. Null when floe's records cannot be
     * read now.
     */
    private List<String> notAwaitedByReclaim(SharedCatalog catalog, TableIdentifier table, List<String> files) {
        FloeState records = catalogs.recordsOf(catalog);
        if (records == null) {
            return null;
        }
        Set<String> awaited = new java.util.HashSet<>();
        records.entries(ReclaimJob.SECTION).forEach((id, encoded) -> {
            ReclaimJob job = ReclaimJob.decode(id, encoded);
            if (!job.expanded() && job.table().equals(table)) {
                awaited.addAll(job.paths());
            }
        });
        List<String> free = new ArrayList<>(files);
        free.removeAll(awaited);
        return free;
    }

    /**
     * Runs {@code work} on the operations of {@code table}, loaded through the instance floe works on
     * ({@link SharedCatalog#withInstance}); false when it waits for the host's next instance.
     */
    private static boolean onTable(SharedCatalog catalog, TableIdentifier table, Consumer<TableOperations> work) {
        return catalog.withInstance(
                instance -> work.accept(((HasTableOperations) instance.loadTable(table)).operations()));
    }

    /**
     * Reclaims, once the grace window of a rebuild just swapped in has passed: on the second thread,
     * as a reclaim reads what the table references now (every kept snapshot's manifests) for each job,
     * and the rebuilds at the trigger need not wait for that. A rebuild never references a retired
     * file again, so the two may run at once.
     */
    void reclaimAfter(Duration grace) {
        apart.schedule(this::reclaimDue, grace.plusMillis(50));
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
        for (SharedCatalog catalog : catalogs.shared()) {
            try {
                catalogs.withShared(catalog, false, own -> new Reclaimer(own).runDue(clock.instant()));
            } catch (Throwable e) {
                errors.record("reclaiming retired files of " + catalog, e);
            }
        }
    }
}
