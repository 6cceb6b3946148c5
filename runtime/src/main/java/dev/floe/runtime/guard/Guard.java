package dev.floe.runtime.guard;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.catalog.MapDbTableOperations;
import dev.floe.runtime.CrashPoint;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.TableBusyException;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.install.ScratchTable;
import dev.floe.runtime.rebuild.CompactReport;
import dev.floe.runtime.rebuild.Compactor;
import dev.floe.runtime.rebuild.Promotions;
import dev.floe.runtime.rebuild.RebuildRefusal;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.upkeep.MetadataHistoryTrim;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guard: what the agent's advice hands off to, usable without the agent too. Host threads
 * call {@link #beforeCommit}/{@link #afterCommit} around every commit of a MapDbCatalog table; a
 * guarded table's commit passes the {@link WriterGate}, its growth is observed, and the {@link
 * TriggerPolicy} may queue a rebuild, which runs on the guard's one background daemon thread
 * ({@link GuardThread}), never on the host's. The same thread does the {@link Maintenance}:
 * recovery when a catalog opens, metadata trims, reclaims.
 *
 * <p>Nothing here throws into the host: failures are counted, logged once, and the host goes on.
 */
public final class Guard implements GuardMetricsMBean {
    private static final Logger LOG = LoggerFactory.getLogger(Guard.class);

    private final GuardSettings settings;
    private final Clock clock;
    private final WriterGate gate = new WriterGate();
    /** The gate wait of the operation this thread is in, until its first commit reports it. */
    private final ThreadLocal<long[]> operationWait = ThreadLocal.withInitial(() -> new long[1]);

    private final HandleRegistry handles;
    private final TableGlobs globs;
    private final TriggerPolicy policy;
    private final Compactor compactor;
    private final GuardThread thread;
    private final HostCatalogs catalogs;
    private final ErrorLog errors = new ErrorLog();
    private final Maintenance maintenance;
    /** The second background thread: major rebuilds ({@link Promotions}). */
    private final GuardThread promoter;

    private volatile boolean closing;
    private final GuardMBeans mbeans;
    private final ConcurrentMap<TableKey, GuardedTable> tables = new ConcurrentHashMap<>();
    private final AtomicLong rebuilds = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger rebuildsRunning =
            new java.util.concurrent.atomic.AtomicInteger();

    /**
     * @param jmxSuffix appended to the names of this guard's MBeans and thread (the agent gives each
     *     class loader's guard its own, {@code ,loader=<name>}); empty for the only guard
     */
    public Guard(GuardSettings settings, Clock clock, String jmxSuffix) {
        this.settings = settings;
        this.clock = clock;
        this.handles = new HandleRegistry(settings.maxTrackedHandles());
        this.globs = new TableGlobs(settings.tables());
        this.catalogs = new HostCatalogs(new SharedState(settings.stateFile()));
        this.policy = new TriggerPolicy(settings);
        this.promoter = new GuardThread(
                jmxSuffix.isEmpty() ? "floe-promoter" : "floe-promoter[" + jmxSuffix.substring(1) + "]");
        // major rebuilds (promotions of settled tiers) run on the second thread, never in the way of
        // the rebuilds at the trigger
        Promotions promotions = settings.rebuild().majorBytes() > 0
                ? new Promotions(
                        promoter::execute, promoter::execute, this::onWorkingCatalog, () -> closing || JvmExit.begun())
                : null;
        this.compactor = new Compactor(
                settings.rebuild(),
                gate,
                handles,
                (step, table) -> CrashPoint.reach("rebuild." + step),
                clock,
                promotions);
        this.thread = new GuardThread(
                jmxSuffix.isEmpty() ? "floe-compactor" : "floe-compactor[" + jmxSuffix.substring(1) + "]");
        this.maintenance = new Maintenance(
                thread, promoter, catalogs, errors, clock, settings.rebuild(), gate, settings.mergeManifests());
        this.mbeans = new GuardMBeans(settings.jmx(), jmxSuffix);
        mbeans.agent(this);
    }

    /** Whether commits of {@code table} of floe's embedded catalog pass the gate and are watched. */
    public boolean guards(TableIdentifier table) {
        return guards(TableKey.embedded(table));
    }

    /**
     * Whether commits of {@code table} pass the gate and are watched: every table of floe's embedded
     * catalog that {@code floe.tables} matches (all when it is empty); a table of a shared catalog
     * only when {@code floe.tables} names it ({@link TableGlobs#names}).
     */
    public boolean guards(TableKey table) {
        if (ScratchTable.isScratchName(table.table())) {
            return false;
        }
        if (table.catalog().isEmpty()) {
            return globs.matches(table.table());
        }
        SharedCatalog catalog = catalogs.shared(table.catalog());
        return catalog != null && globs.names(catalog.name(), table.table());
    }

    /** {@link #beforeCommit(TableKey)} for a table of floe's embedded catalog. */
    public long beforeCommit(TableIdentifier table) {
        return beforeCommit(TableKey.embedded(table));
    }

    /**
     * Called on the host's thread before a commit of {@code table}: takes the table's gate if it is
     * guarded. Returns the nanoseconds waited, or -1 when the table is not guarded (and no gate was
     * taken). Inside an operation ({@link #beforeOperation}) the gate is already held; the wait
     * returned is then the operation's, once.
     */
    public long beforeCommit(TableKey table) {
        if (!guards(table)) {
            return -1;
        }
        if (gate.isHeldByCurrentThread(table)) {
            gate.enter(table);
            long[] waited = operationWait.get();
            long wait = waited[0];
            waited[0] = 0;
            return wait;
        }
        return gate.enter(table);
    }

    /** {@link #beforeOperation(TableKey)} for a table of floe's embedded catalog. */
    public long beforeOperation(TableIdentifier table) {
        return beforeOperation(TableKey.embedded(table));
    }

    /**
     * Called on the host's thread before a whole snapshot-producing operation of {@code table} (an
     * append's apply and commit, with Iceberg's retries): takes the table's gate if it is guarded, so
     * an operation that waited while a rebuild swapped the table applies itself to the swapped table,
     * instead of failing its compare-and-swap and backing off before Iceberg retries it. Returns the
     * nanoseconds waited, or -1 when no gate was taken; pass it to {@link #afterOperation}.
     */
    public long beforeOperation(TableKey table) {
        if (!guards(table)) {
            return -1;
        }
        long wait = gate.enter(table);
        operationWait.get()[0] = wait;
        return wait;
    }

    /** {@link #afterOperation(TableKey, long)} for a table of floe's embedded catalog. */
    public void afterOperation(TableIdentifier table, long gateWait) {
        afterOperation(TableKey.embedded(table), gateWait);
    }

    /** Releases the gate taken by {@link #beforeOperation} ({@code gateWait >= 0}). */
    public void afterOperation(TableKey table, long gateWait) {
        if (gateWait < 0) {
            return;
        }
        operationWait.get()[0] = 0;
        gate.exit(table);
    }

    /**
     * Called on the host's thread after a commit through {@code ops} (floe's embedded catalog),
     * whatever its outcome: releases the gate taken by {@link #beforeCommit} ({@code gateWait >= 0}),
     * then, if the commit succeeded, observes the table's growth and perhaps queues a rebuild.
     */
    public void afterCommit(MapDbTableOperations ops, TableMetadata committed, boolean succeeded, long gateWait) {
        if (gateWait < 0) {
            return;
        }
        TableKey key = TableKey.embedded(ops.identifier());
        gate.exit(key);
        if (!succeeded || committed == null) {
            return;
        }
        MapDbCatalog catalog = ops.catalog();
        try {
            catalogs.seen(catalog);
            GuardedTable state = state(key);
            state.working = work -> catalogs.withOwn(catalog, own -> work.accept(new MapDbRebuildCatalog(own)));
            state.lastCommitted = committed;
            maintenance.committed(catalog, key.table(), state);
            observe(key, state, growthOf(ops, committed), committed, gateWait);
        } catch (RuntimeException e) {
            errors.record("observing a commit of " + key, e);
        }
    }

    /**
     * {@link #afterCommit(MapDbTableOperations, TableMetadata, boolean, long)} for a commit of {@code
     * table} in a shared catalog, {@code base} to {@code committed}: the growth is read from {@code
     * committed} on this thread, its metadata bytes on the background thread now and then (never a
     * read of the catalog or the file system here); the metadata files the commit dropped from the
     * table's log are deleted there too ({@link Maintenance#forgotten}).
     */
    public void afterCommit(
            SharedCatalog catalog,
            TableIdentifier table,
            TableMetadata base,
            TableMetadata committed,
            boolean succeeded,
            long gateWait) {
        if (gateWait < 0) {
            return;
        }
        TableKey key = new TableKey(catalog.key(), table);
        gate.exit(key);
        if (!succeeded || committed == null) {
            return;
        }
        try {
            GuardedTable state = state(key);
            state.working = work -> catalogs.withShared(catalog, true, work);
            state.lastCommitted = committed;
            maintenance.forgotten(catalog, table, state, MetadataHistoryTrim.forgottenBy(base, committed));
            TableGrowth growth = TableGrowth.of(committed, state.metadataBytes);
            maintenance.measureIfDue(catalog, table, state, measured -> observe(key, state, measured, committed, -1));
            observe(key, state, growth, committed, gateWait);
        } catch (RuntimeException e) {
            errors.record("observing a commit of " + key, e);
        }
    }

    /** The growth a commit left: the trigger policy may queue a rebuild on the background thread. */
    private void observe(TableKey key, GuardedTable state, TableGrowth growth, TableMetadata committed, long gateWait) {
        if (gateWait >= 0) {
            state.metrics.committed(growth, gateWait);
            maintenance.mergeIfDue(key, state);
        }
        state.lastCommitted = committed;
        String reason = policy.reason(growth, state.lastRebuild, state.filesAfterRebuild, clock.instant());
        if (reason == null || state.busyAt(clock.instant())) {
            return;
        }
        String refused = RebuildRefusal.of(committed);
        if (refused != null) {
            if (state.warnedRefused.compareAndSet(false, true)) {
                LOG.warn("floe: {} {}; it is monitored but not rebuilt", key, refused);
            }
            return;
        }
        if (state.queued.compareAndSet(false, true)) {
            WorkingCatalog working = state.working;
            thread.execute(() -> rebuild(working, key, reason, state));
        }
    }

    /** Called when the host loads a table handle from floe's embedded catalog. */
    public void tableLoaded(TableIdentifier table, Table handle) {
        tableLoaded(TableKey.embedded(table), handle);
    }

    /** Called when the host loads a table handle: tracked for reload after rebuilds. */
    public void tableLoaded(TableKey table, Table handle) {
        if (guards(table)) {
            handles.track(table, handle);
        }
    }

    /** Called when the host opens a MapDbCatalog: recovery runs on the background thread. */
    public void catalogOpened(MapDbCatalog catalog) {
        maintenance.catalogOpened(catalog);
    }

    /**
     * Called when the host initialises {@code instance}, of a shared catalog. Returns the catalog as this guard knows it
     * (the first of its key); when {@code floe.tables} names tables, the first time a catalog is seen
     * recovery runs for it on the background thread, from floe's state file.
     */
    public SharedCatalog catalogOpened(SharedCatalog catalog, org.apache.iceberg.catalog.Catalog instance) {
        SharedCatalog known = catalogs.seen(catalog, instance);
        if (known == catalog && !globs.isEmpty()) {
            maintenance.sharedCatalogOpened(known);
        }
        return known;
    }

    /**
     * Called on the host's thread when the host closes {@code instance}, of a shared catalog (as its
     * {@code close()} begins): floe's background work stops using it (a closed JDBC catalog's
     * connections are gone) and waits for the host's next instance. The close waits, at most
     * {@code bound}, for floe's task at hand on that instance to end first.
     */
    public void catalogClosed(org.apache.iceberg.catalog.Catalog instance, Duration bound) {
        catalogs.closed(instance, bound);
    }

    /**
     * True for what floe does itself: anything on its background thread, and any instance of a
     * catalog floe opened. The agent neither gates nor watches it, nor tracks the handles it loads.
     */
    public boolean isFloes(Object catalog) {
        return thread.isCurrent() || promoter.isCurrent() || SharedCatalog.isFloes(catalog);
    }

    /** Runs a major rebuild's work on {@code table}'s working catalog; false when there is none now. */
    private boolean onWorkingCatalog(TableKey table, java.util.function.Consumer<RebuildCatalog> work) {
        GuardedTable state = tables.get(table);
        WorkingCatalog working = state == null ? null : state.working;
        return working != null && working.run(work);
    }

    /** Waits until everything queued so far on the background thread has run. */
    public void awaitIdle(Duration timeout) throws InterruptedException {
        thread.awaitIdle(timeout);
        promoter.awaitIdle(timeout); // what a rebuild left for it (listing what it retired)
        thread.awaitIdle(timeout);
    }

    /** The metrics of a table this guard has seen commit, or null. */
    public TableMetrics metrics(TableIdentifier table) {
        return metrics(TableKey.embedded(table));
    }

    /** The metrics of a table this guard has seen commit, or null. */
    public TableMetrics metrics(TableKey table) {
        GuardedTable state = tables.get(table);
        return state == null ? null : state.metrics;
    }

    public WriterGate gate() {
        return gate;
    }

    /**
     * Stops the background thread after the task at hand (queued rebuilds are dropped) and removes
     * this guard's MBeans.
     */
    public void close() {
        closing = true;
        mbeans.unregisterAll();
        promoter.close();
        thread.close();
        catalogs.close();
    }

    /**
     * For the end of the process (the agent's shutdown hook): waits at most {@code bound} for the
     * task at hand on the background thread, drops queued ones, and once it has ended closes floe's
     * state file and floe's own catalog instances. A state file left open looks to the next start
     * like one a crash left: it replays its journal and says the file was not closed. A task still
     * running after {@code bound} is left to the exit, which is then exactly such a crash: every
     * record is durable and the next start recovers from them.
     */
    public void closeAtExit(Duration bound) {
        closing = true; // a major rebuild stops at its next check and deletes what it wrote
        long deadline = System.nanoTime() + bound.toNanos();
        thread.shutdown();
        promoter.shutdown();
        boolean rebuildsEnded = thread.awaitStopped(bound);
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        if (promoter.awaitStopped(left) && rebuildsEnded) {
            catalogs.close();
        }
    }

    private void rebuild(WorkingCatalog working, TableKey table, String reason, GuardedTable state) {
        rebuildsRunning.incrementAndGet();
        try {
            if (working.run(catalog -> rebuildOn(catalog, table.table(), reason, state))) {
                state.lastRebuild = clock.instant();
            }
        } catch (Throwable e) {
            state.lastRebuild = clock.instant();
            if (JvmExit.begun()) {
                // the JVM's exit shut down what the rebuild ran on (Iceberg's worker pool, the host's
                // catalog): not a failure of the table's, and its records recover it at the next start
                LOG.info(
                        "floe: the rebuild of {} stopped with the JVM's exit ({}); its records recover it at the next"
                                + " start",
                        table,
                        e.toString());
                LOG.debug("floe: the rebuild of {} at the JVM's exit", table, e);
                return;
            }
            state.metrics.failed(e);
            errors.record("rebuilding " + table, e);
        } finally {
            rebuildsRunning.decrementAndGet();
            state.queued.set(false);
        }
    }

    private void rebuildOn(RebuildCatalog catalog, TableIdentifier table, String reason, GuardedTable state) {
        LOG.debug("floe: rebuilding {} ({})", table, reason);
        CompactReport report;
        try {
            report = compactor.compactTable(catalog, table, settings.prune().get());
        } catch (TableBusyException e) {
            backOff(state, e);
            return;
        }
        state.busyStreak = 0;
        state.busyUntil = null;
        state.metrics.backedOff(0, null);
        state.metrics.rebuilt(report);
        state.filesAfterRebuild = report.dataFilesAfter();
        state.commitsSinceMerge.set(0);
        rebuilds.incrementAndGet();
        // its files are due when the grace window ends: reclaim then, not at the next periodic pass
        maintenance.reclaimAfter(settings.rebuild().reclaimGrace());
    }

    /** A busy table is left alone for a while, longer after each busy rebuild in a row. */
    private void backOff(GuardedTable state, TableBusyException e) {
        int streak = state.busyStreak + 1;
        Duration wait = settings.busyWait(streak);
        Instant until = clock.instant().plus(wait);
        state.busyStreak = streak;
        state.busyUntil = until;
        state.metrics.backedOff(streak, until);
        LOG.warn(
                "floe: {} Busy {} time(s) in a row: left alone for {} (until {}).",
                e.getMessage(),
                streak,
                wait,
                until);
    }

    private GuardedTable state(TableKey table) {
        return tables.computeIfAbsent(table, id -> {
            GuardedTable created = new GuardedTable(new TableMetrics(() -> handles.tracked(id)));
            SharedCatalog shared = id.catalog().isEmpty() ? null : catalogs.shared(id.catalog());
            mbeans.table(shared == null ? id.table().toString() : shared.name() + "." + id.table(), created.metrics);
            return created;
        });
    }

    /** From the pointer and the file the commit left, not the catalog: the host may have closed it. */
    private static TableGrowth growthOf(MapDbTableOperations ops, TableMetadata committed) {
        String location = ops.pointer();
        long metadataBytes =
                location == null ? 0 : ops.io().newInputFile(location).getLength();
        return TableGrowth.of(committed, metadataBytes);
    }

    @Override
    public int getQueueLength() {
        return thread.queueLength();
    }

    @Override
    public long getErrors() {
        return errors.count();
    }

    @Override
    public long getRebuilds() {
        return rebuilds.get();
    }

    @Override
    public int getTasksRunning() {
        return thread.running();
    }

    @Override
    public int getRebuildsRunning() {
        return rebuildsRunning.get();
    }

    @Override
    public int getGuardedTables() {
        return tables.size();
    }

    @Override
    public String getLastError() {
        return errors.last();
    }
}
