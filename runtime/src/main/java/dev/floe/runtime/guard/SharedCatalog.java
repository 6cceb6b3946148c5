package dev.floe.runtime.guard;

import java.io.Closeable;
import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A catalog of the host's other than floe's embedded one (JDBC, REST, Hive, Glue, Nessie, Hadoop),
 * as the guard knows it: its name, the instance the host initialised last (held weakly), and how to
 * open one of floe's own on the same tables (the host instance's class, name, properties and Hadoop
 * configuration).
 *
 * <p>floe's background work runs on the host's newest instance while the host keeps one: a second
 * instance would double the host's connections to a shared service (a metastore client pool, a
 * REST session), and on some it cannot even work beside the host's (a JDBC catalog on SQLite: see
 * docs/attach.md). Only when the host has dropped every instance does floe open one of its own. When the
 * host closed its newest instance (its connections are gone, and the tables it handed out cannot
 * commit either), floe's work waits for the host's next one: an instance of floe's own could keep
 * the host's next one from writing (SQLite).
 *
 * <p>What floe does on its background thread passes no gate and is not watched (the agent asks
 * {@link Guard#isFloes}); {@link #isFloes} tells which instances floe opened.
 */
public final class SharedCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(SharedCatalog.class);
    /** The instances floe opened, weakly; and the thread opening one right now. */
    private static final Set<Object> FLOES =
            Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private static final ThreadLocal<Boolean> OPENING = ThreadLocal.withInitial(() -> false);

    private final String name;
    private final String key;
    private final Class<?> type;
    private final Map<String, String> properties;
    private final Object conf;
    private volatile WeakReference<Catalog> host;
    private boolean hostClosed; // guarded by this
    private Catalog own; // guarded by this
    private boolean ownFailed; // guarded by this
    /** How many of floe's tasks use each instance now (its two threads may). Guarded by this. */
    private final Map<Catalog, Integer> inUse = new java.util.IdentityHashMap<>();

    private SharedCatalog(Catalog host, String name, Map<String, String> properties, Object conf) {
        this.name = name;
        this.key = keyOf(name, properties);
        this.type = host.getClass();
        this.properties = Map.copyOf(properties);
        this.conf = conf;
        this.host = new WeakReference<>(host);
    }

    /**
     * The catalog {@code host} is, as it was initialised: {@code name} and {@code properties} as
     * given to its {@code initialize}, {@code conf} its Hadoop configuration or null.
     */
    public static SharedCatalog of(Catalog host, String name, Map<String, String> properties, Object conf) {
        return new SharedCatalog(host, name, properties, conf);
    }

    /**
     * What tells the catalog apart from others in this JVM: its name and where its tables are kept
     * ({@code uri}, else {@code warehouse}). Every instance the host opens of one catalog has the
     * same key, so their tables share one gate and one set of floe's records. Public for the
     * operator CLI, which must find the records an agent kept for the same catalog.
     */
    public static String keyOf(String name, Map<String, String> properties) {
        String where = properties.getOrDefault(
                org.apache.iceberg.CatalogProperties.URI,
                properties.getOrDefault(org.apache.iceberg.CatalogProperties.WAREHOUSE_LOCATION, ""));
        return where.isEmpty() ? name : name + "@" + where;
    }

    public String name() {
        return name;
    }

    public String key() {
        return key;
    }

    /** Notes a newer instance the host initialised of this catalog: floe works on it from now on. */
    synchronized void hostOpened(Catalog newer) {
        if (host.get() != newer) {
            host = new WeakReference<>(newer);
        }
        hostClosed = false;
    }

    /**
     * Notes that the host closes {@code instance} (its {@code close()} begins): if it is the one floe
     * works on, floe takes it no more, and work on it waits for the host's next one. The close waits,
     * at most {@code bound}, for the task that is using it right now to end: a tidy host closes its
     * catalog just before it exits, maybe in the middle of a rebuild or a reclaim on it, which would
     * otherwise fail half way. Called on the host's thread, never on floe's.
     */
    synchronized void hostClosed(Catalog instance, java.time.Duration bound) {
        if (host.get() == instance) {
            host = new WeakReference<>(null);
            hostClosed = true;
        }
        long deadline = System.nanoTime() + bound.toNanos();
        try {
            for (long left = bound.toNanos();
                    inUse.containsKey(instance) && left > 0;
                    left = deadline - System.nanoTime()) {
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (inUse.containsKey(instance)) {
            LOG.info(
                    "floe: the host closes {} while floe's work still runs on it after {}; that work stops and waits for the host's next instance",
                    this,
                    bound);
        }
    }

    /** Whether the host closed its newest instance and has opened none since. */
    synchronized boolean closedByHost() {
        return hostClosed;
    }

    /**
     * Runs {@code work} on {@link #instance()}. Returns false when there is none, or when the host
     * closed it while the work ran on it, which then failed: the work waits for the host's next one.
     */
    boolean withInstance(java.util.function.Consumer<Catalog> work) {
        Catalog instance = acquire();
        if (instance == null) {
            LOG.debug("floe: no instance of {} is left to work on; work on it waits", this);
            return false;
        }
        try {
            work.accept(instance);
            return true;
        } catch (RuntimeException e) {
            if (!closedSince(instance)) {
                throw e;
            }
            LOG.debug("floe: the host closed {} while floe worked on it; the work waits: {}", this, e.toString());
            return false;
        } finally {
            release(instance);
        }
    }

    /** {@link #instance()}, marked in use until {@link #release}, so that a host's close waits for it. */
    private synchronized Catalog acquire() {
        Catalog instance = instance();
        if (instance != null) {
            inUse.merge(instance, 1, Integer::sum);
        }
        return instance;
    }

    private synchronized void release(Catalog instance) {
        if (inUse.computeIfPresent(instance, (key, users) -> users > 1 ? users - 1 : null) == null) {
            notifyAll();
        }
    }

    /** Whether {@code instance}, handed out by {@link #instance()}, is one the host has closed since. */
    private synchronized boolean closedSince(Catalog instance) {
        return hostClosed && instance != own;
    }

    /** True for an instance floe opened itself (or is opening on this thread right now). */
    public static boolean isFloes(Object catalog) {
        return OPENING.get() || FLOES.contains(catalog);
    }

    /**
     * The host's newest instance while it holds one; else floe's own, opened on first such use;
     * null when neither can be had, or when the host closed its newest instance.
     */
    synchronized Catalog instance() {
        Catalog hosts = host.get();
        if (hosts != null) {
            return hosts;
        }
        if (hostClosed) {
            return null;
        }
        if (own == null && !ownFailed) {
            try {
                own = open();
            } catch (RuntimeException | ReflectiveOperationException | LinkageError e) {
                ownFailed = true;
                LOG.warn(
                        "floe: the host dropped its instances of {} and floe cannot open one of its own ({}: {}); work on its tables waits for the host to open it again",
                        this,
                        type.getName(),
                        e.toString());
            }
        }
        return own;
    }

    private Catalog open() throws ReflectiveOperationException {
        OPENING.set(true);
        try {
            Catalog opened = (Catalog) type.getDeclaredConstructor().newInstance();
            FLOES.add(opened);
            if (conf != null) {
                CatalogUtil.configureHadoopConf(opened, conf);
            }
            opened.initialize(name, properties);
            LOG.info("floe: opened an instance of its own of {} ({}): the host holds none", this, type.getName());
            return opened;
        } finally {
            OPENING.set(false);
        }
    }

    /** Closes floe's own instance, if one was opened. */
    synchronized void close() {
        if (own instanceof Closeable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.debug("floe: closing its instance of catalog {} failed: {}", name, e.toString());
            }
        }
        own = null;
    }

    @Override
    public String toString() {
        return "catalog " + key;
    }
}
