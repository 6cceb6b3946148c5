package dev.floe.runtime;

import dev.floe.catalog.CrashPoint;
import dev.floe.catalog.MapDbCatalog;
import dev.floe.catalog.MapDbTableOperations;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guard: what the agent's advice hands off to, usable without the agent too. Host threads
 * call {@link #beforeCommit}/{@link #afterCommit} around every commit of a MapDbCatalog table; a
 * guarded table's commit passes the {@link WriterGate}, its growth is observed, and the {@link
 * TriggerPolicy} may queue a rebuild, which runs on the guard's one background daemon thread,
 * never on the host's. The same thread runs recovery when a catalog opens and reclaims retired
 * files when their grace window has passed.
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
  private final ScheduledThreadPoolExecutor worker;
  private final ConcurrentMap<TableIdentifier, TableState> tables = new ConcurrentHashMap<>();
  private final HostCatalogs catalogs = new HostCatalogs();
  /** Catalog files with a recovery queued and not yet run: one at a time per file. */
  private final Set<java.nio.file.Path> recoveryQueued = ConcurrentHashMap.newKeySet();
  private final List<ObjectName> registered = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong rebuilds = new AtomicLong();
  private final String jmxSuffix;
  private volatile String lastError = "";

  /** Per-table state: metrics, when it was last rebuilt, whether a rebuild is queued. */
  private static final class TableState {
    final TableMetrics metrics;
    final AtomicBoolean queued = new AtomicBoolean();
    final AtomicBoolean warnedPartitioned = new AtomicBoolean();
    final AtomicBoolean trimQueued = new AtomicBoolean();
    volatile TableMetadata lastCommitted;
    final AtomicInteger commitsSinceTrim = new AtomicInteger();
    volatile Instant lastRebuild;
    volatile long filesAfterRebuild;
    /** Busy rebuilds in a row, and until when the table is left alone after the last one. */
    volatile int busyStreak;
    volatile Instant busyUntil;

    TableState(TableMetrics metrics) {
      this.metrics = metrics;
    }
  }

  public Guard(GuardSettings settings, Clock clock, String jmxSuffix) {
    this.settings = settings;
    this.clock = clock;
    this.jmxSuffix = jmxSuffix;
    this.handles = new HandleRegistry(settings.maxTrackedHandles());
    this.globs = new TableGlobs(settings.tables());
    this.policy = new TriggerPolicy(settings);
    this.compactor =
        new Compactor(
            settings.rebuild(), gate, handles, (step, table) -> CrashPoint.reach("rebuild." + step), clock);
    this.worker = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, jmxSuffix.isEmpty() ? "floe-compactor" : "floe-compactor[" + jmxSuffix.substring(1) + "]");
      thread.setDaemon(true);
      return thread;
    });
    worker.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    long reclaimEvery = Math.max(1_000, Math.min(30_000, settings.rebuild().reclaimGrace().toMillis() / 2));
    worker.scheduleWithFixedDelay(this::reclaimDue, reclaimEvery, reclaimEvery, TimeUnit.MILLISECONDS);
    registerMBean("dev.floe:type=Agent" + jmxSuffix, this, GuardMetricsMBean.class);
  }

  public Guard(GuardSettings settings) {
    this(settings, Clock.systemUTC(), "");
  }

  /** Whether commits of {@code table} pass the gate and are watched. */
  public boolean guards(TableIdentifier table) {
    return !ScratchTable.isScratchName(table) && globs.matches(table);
  }

  /**
   * Called on the host's thread before a commit of {@code table}: takes the table's gate if it is
   * guarded. Returns the nanoseconds waited, or -1 when the table is not guarded (and no gate was
   * taken). Inside an operation ({@link #beforeOperation}) the gate is already held; the wait
   * returned is then the operation's, once.
   */
  public long beforeCommit(TableIdentifier table) {
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

  /**
   * Called on the host's thread before a whole snapshot-producing operation of {@code table} (an
   * append's apply and commit, with Iceberg's retries): takes the table's gate if it is guarded, so
   * an operation that waited while a rebuild swapped the table applies itself to the swapped table,
   * instead of failing its compare-and-swap and backing off before Iceberg retries it. Returns the
   * nanoseconds waited, or -1 when no gate was taken; pass it to {@link #afterOperation}.
   */
  public long beforeOperation(TableIdentifier table) {
    if (!guards(table)) {
      return -1;
    }
    long wait = gate.enter(table);
    operationWait.get()[0] = wait;
    return wait;
  }

  /** Releases the gate taken by {@link #beforeOperation} ({@code gateWait >= 0}). */
  public void afterOperation(TableIdentifier table, long gateWait) {
    if (gateWait < 0) {
      return;
    }
    operationWait.get()[0] = 0;
    gate.exit(table);
  }

  /**
   * Called on the host's thread after a commit of {@code table}, whatever its outcome: releases
   * the gate taken by {@link #beforeCommit} ({@code gateWait >= 0}), then, if the commit
   * succeeded, observes the table's growth and perhaps queues a rebuild.
   */
  public void afterCommit(MapDbTableOperations ops, TableMetadata committed, boolean succeeded, long gateWait) {
    MapDbCatalog catalog = ops.catalog();
    TableIdentifier table = ops.identifier();
    if (gateWait < 0) {
      return;
    }
    gate.exit(table);
    if (!succeeded || committed == null) {
      return;
    }
    try {
      catalogs.seen(catalog);
      TableState state = state(table);
      TableGrowth growth = growthOf(ops, committed);
      state.metrics.committed(growth, gateWait);
      state.lastCommitted = committed;
      queueTrim(catalog, table, state);
      String reason = policy.reason(growth, state.lastRebuild, state.filesAfterRebuild, clock.instant());
      if (reason == null || busy(state)) {
        return;
      }
      if (committed.spec().isPartitioned()) {
        if (state.warnedPartitioned.compareAndSet(false, true)) {
          LOG.warn("floe: {} is partitioned; it is monitored but not rebuilt (floe rebuilds unpartitioned tables only)", table);
        }
        return;
      }
      if (state.queued.compareAndSet(false, true)) {
        worker.execute(() -> rebuild(catalog, table, reason));
      }
    } catch (RuntimeException e) {
      recordError("observing a commit of " + table, e);
    }
  }

  /**
   * Every {@link RebuildSettings#metadataVersions()} commits, deletes on the background thread the
   * metadata files the table's log has forgotten ({@link MetadataHistoryTrim}).
   */
  private void queueTrim(MapDbCatalog catalog, TableIdentifier table, TableState state) {
    int every = settings.rebuild().metadataVersions();
    if (every <= 0 || state.commitsSinceTrim.incrementAndGet() < every || !state.trimQueued.compareAndSet(false, true)) {
      return;
    }
    state.commitsSinceTrim.set(0);
    worker.execute(() -> {
      state.trimQueued.set(false);
      try {
        // with no instance of the file open, the next trim catches up
        catalogs.withOwn(catalog, own -> MetadataHistoryTrim.trim(own, table, state.lastCommitted));
      } catch (RuntimeException e) {
        recordError("deleting forgotten metadata files of " + table, e);
      }
    });
  }

  /** Called when the host loads a table handle from a MapDbCatalog: tracked for reload after swaps. */
  public void tableLoaded(TableIdentifier table, Table handle) {
    if (guards(table)) {
      handles.track(table, handle);
    }
  }

  /** Called when the host opens a MapDbCatalog: recovery runs on the background thread. */
  public void catalogOpened(MapDbCatalog catalog) {
    catalogs.seen(catalog);
    if (catalog.catalogFile() == null || !recoveryQueued.add(catalog.catalogFile())) {
      return; // one recovery of the file is already waiting to run
    }
    worker.execute(() -> {
      recoveryQueued.remove(catalog.catalogFile());
      try {
        // a host that closed every instance of the file meanwhile reopens it later, and that
        // instance's recovery runs then
        catalogs.withOwn(catalog, own -> Recovery.run(own, clock.instant()));
      } catch (RuntimeException e) {
        recordError("recovering catalog " + catalog.name(), e);
      }
    });
  }

  /** Queues a rebuild of {@code table} now, whatever its growth (for operators and tests). */
  public void requestRebuild(MapDbCatalog catalog, TableIdentifier table) {
    TableState state = state(table);
    if (state.queued.compareAndSet(false, true)) {
      worker.execute(() -> rebuild(catalog, table, "requested"));
    }
  }

  /** Waits until everything queued so far on the background thread has run. */
  public void awaitIdle(Duration timeout) throws InterruptedException {
    var done = worker.submit(() -> {});
    try {
      done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("floe's background thread did not go idle within " + timeout, e);
    }
  }

  /** The metrics of a table this guard has seen commit, or null. */
  public TableMetrics metrics(TableIdentifier table) {
    TableState state = tables.get(table);
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
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName name : registered) {
      try {
        server.unregisterMBean(name);
      } catch (Exception e) {
        // gone already
      }
    }
    registered.clear();
    worker.shutdown();
    worker.getQueue().clear();
    try {
      worker.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void rebuild(MapDbCatalog catalog, TableIdentifier table, String reason) {
    TableState state = state(table);
    try {
      boolean ran = catalogs.withOwn(catalog, own -> rebuildOn(own, table, reason, state));
      if (ran) {
        state.lastRebuild = clock.instant();
      }
    } catch (Throwable e) {
      state.metrics.failed(e);
      recordError("rebuilding " + table, e);
      state.lastRebuild = clock.instant();
    } finally {
      state.queued.set(false);
    }
  }

  private void rebuildOn(MapDbCatalog catalog, TableIdentifier table, String reason, TableState state) {
    LOG.debug("floe: rebuilding {} ({})", table, reason);
    CompactReport report;
    try {
      report = compactor.compactTable(catalog, table, settings.prune().get());
    } catch (TableBusyException e) {
      backOff(table, state, e);
      return;
    }
    state.busyStreak = 0;
    state.busyUntil = null;
    state.metrics.backedOff(0, null);
    state.metrics.rebuilt(report);
    state.filesAfterRebuild = report.dataFilesAfter();
    rebuilds.incrementAndGet();
    // its files are due when the grace window ends: reclaim then, not at the next periodic pass
    worker.schedule(this::reclaimDue, settings.rebuild().reclaimGrace().toMillis() + 50, TimeUnit.MILLISECONDS);
  }

  /** A busy table is left alone for a while, longer after each busy rebuild in a row. */
  private void backOff(TableIdentifier table, TableState state, TableBusyException e) {
    int streak = state.busyStreak + 1;
    Duration wait = settings.busyWait(streak);
    Instant until = clock.instant().plus(wait);
    state.busyStreak = streak;
    state.busyUntil = until;
    state.metrics.backedOff(streak, until);
    LOG.warn("floe: {} Busy {} time(s) in a row: left alone for {} (until {}).", e.getMessage(), streak, wait, until);
  }

  private boolean busy(TableState state) {
    Instant until = state.busyUntil;
    return until != null && clock.instant().isBefore(until);
  }

  private void reclaimDue() {
    for (MapDbCatalog catalog : catalogs.perFile()) {
      try {
        catalogs.withOwn(catalog, own -> new Reclaimer(own).runDue(clock.instant()));
      } catch (Throwable e) {
        // never let a failure cancel the schedule
        recordError("reclaiming retired files of catalog " + catalog.name(), e);
      }
    }
  }

  private TableState state(TableIdentifier table) {
    return tables.computeIfAbsent(table, id -> {
      TableState created = new TableState(new TableMetrics(() -> handles.tracked(id)));
      registerMBean(
          "dev.floe:type=Table,name=" + quoteIfNeeded(id.toString()) + jmxSuffix,
          created.metrics,
          TableMetricsMBean.class);
      return created;
    });
  }

  /** From the pointer and the file the commit left, not the catalog: the host may have closed it. */
  private static TableGrowth growthOf(MapDbTableOperations ops, TableMetadata committed) {
    Snapshot current = committed.currentSnapshot();
    long dataFiles = current == null ? 0 : Long.parseLong(current.summary().getOrDefault("total-data-files", "0"));
    String location = ops.pointer();
    long metadataBytes = location == null ? 0 : ops.io().newInputFile(location).getLength();
    return new TableGrowth(committed.snapshots().size(), dataFiles, metadataBytes);
  }

  private void recordError(String what, Throwable e) {
    errors.incrementAndGet();
    lastError = what + ": " + e;
    LOG.error("floe: failed {}: {}", what, e.toString());
    LOG.debug("floe: failure detail", e);
  }

  private <T> void registerMBean(String name, T bean, Class<T> view) {
    if (!settings.jmx()) {
      return;
    }
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      ObjectName objectName = new ObjectName(name);
      if (!server.isRegistered(objectName)) {
        server.registerMBean(new StandardMBean(bean, view), objectName);
        registered.add(objectName);
      }
    } catch (Exception | LinkageError e) {
      LOG.warn("floe: could not register MBean {}: {}", name, e.toString());
    }
  }

  private static String quoteIfNeeded(String value) {
    return value.matches("[A-Za-z0-9_.\\-]+") ? value : ObjectName.quote(value);
  }

  @Override
  public int getQueueLength() {
    return worker.getQueue().size();
  }

  @Override
  public long getErrors() {
    return errors.get();
  }

  @Override
  public long getRebuilds() {
    return rebuilds.get();
  }

  @Override
  public int getGuardedTables() {
    return tables.size();
  }

  @Override
  public String getLastError() {
    return lastError;
  }
}
