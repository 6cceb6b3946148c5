package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import dev.floe.catalog.MapDbCatalog;
import dev.floe.catalog.MapDbTableOperations;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.guard.Guard;
import dev.floe.runtime.guard.GuardSettings;
import java.time.Clock;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One class loader's guard, behind the bridge: {@link LoaderGuards} creates one per class loader
 * whose table operations or catalogs come through, in an {@link dev.floe.agent.boot.IsolatingLoader}
 * over that loader, so this class and the runtime it calls link against that loader's Iceberg. It
 * checks what it is handed and hands off to the runtime's {@link Guard}, which is created on first
 * use (the host's first commit or catalog), so nothing of the host (its logging, its Iceberg) is
 * touched before the host touches it.
 *
 * <p>A MapDbCatalog's operations say which table they are; those of any other catalog are known by
 * the catalog that handed out their table ({@link SharedTables}).
 *
 * <p>When this loader's Iceberg is a version floe does not support, or the configured prune class
 * is not usable here, one line says so and every method does nothing.
 */
public final class Hooks implements FloeBridge.Dispatcher {
    private final GuardSettings settings;
    private final String jmxSuffix;
    private final SharedTables shared = new SharedTables();
    private final RestAttachment rest;
    private volatile Guard guard;

    /**
     * How long the JVM's exit waits for the rebuild or reclaim at hand before it closes the state
     * file, and a host's close of a shared catalog's instance for floe's work on that instance.
     */
    static final java.time.Duration EXIT_WAIT = java.time.Duration.ofSeconds(10);

    /**
     * Called reflectively by {@link LoaderGuards}, with JDK types only.
     *
     * @param restSlot swaps the REST endpoint's handler (expected, replacement: a compare-and-set);
     *     null when the endpoint is off
     */
    public Hooks(
            Map<String, String> config,
            String source,
            String jmxSuffix,
            String loaderName,
            String instrumented,
            java.util.function.BiPredicate<com.sun.net.httpserver.HttpHandler, com.sun.net.httpserver.HttpHandler>
                    restSlot) {
        this.jmxSuffix = jmxSuffix;
        AgentConfig parsed = configFor(config, source, loaderName, instrumented);
        this.settings = parsed == null ? null : parsed.settings();
        this.rest = new RestAttachment(restSlot, parsed == null ? null : parsed.rest());
    }

    private static AgentConfig configFor(
            Map<String, String> config, String source, String loaderName, String instrumented) {
        ClassLoader here = Hooks.class.getClassLoader();
        IcebergSupport iceberg = IcebergSupport.detect(here);
        String unsupported = iceberg.unsupportedReason();
        if (unsupported == null) {
            unsupported = InstrumentationCheck.mismatch(here);
        }
        if (unsupported != null) {
            AgentLog.warn("floe " + FloeAgent.VERSION + " does not guard the Iceberg " + iceberg.version() + " of "
                    + loaderName + ": " + unsupported + "; its commits go on unguarded");
            return null;
        }
        try {
            AgentConfig parsed = AgentConfig.parse(config, source, here);
            AgentLog.info(
                    "guarding Iceberg " + iceberg.version() + " in " + loaderName + ": instrumented " + instrumented);
            return parsed;
        } catch (ConfigException e) {
            AgentLog.error("floe " + FloeAgent.VERSION + " does not guard the Iceberg of " + loaderName + ": "
                    + e.getMessage() + ". Its commits go on unguarded.");
            return null;
        }
    }

    Guard guard() {
        Guard current = guard;
        if (current == null && settings != null) {
            synchronized (this) {
                current = guard;
                if (current == null) {
                    Guard created = new Guard(settings, Clock.systemUTC(), jmxSuffix);
                    // the state file is floe's alone to close; no host closes it
                    Runtime.getRuntime()
                            .addShutdownHook(new Thread(() -> created.closeAtExit(EXIT_WAIT), "floe-exit" + jmxSuffix));
                    current = created;
                    guard = current;
                }
            }
        }
        return current;
    }

    @Override
    public long beforeCommit(Object ops) {
        return enter(ops, false);
    }

    @Override
    public void afterCommit(Object ops, Object base, Object metadata, long entered, Throwable thrown) {
        if (entered <= 0) {
            return;
        }
        TableMetadata committed = metadata instanceof TableMetadata ? (TableMetadata) metadata : null;
        if (ops instanceof MapDbTableOperations) {
            guard().afterCommit((MapDbTableOperations) ops, committed, thrown == null, entered - 1);
            return;
        }
        SharedTables.Table table = shared.of(ops);
        if (table != null) {
            TableMetadata from = base instanceof TableMetadata ? (TableMetadata) base : null;
            guard().afterCommit(table.catalog(), table.identifier(), from, committed, thrown == null, entered - 1);
        }
    }

    @Override
    public long beforeOperation(Object ops) {
        return enter(ops, true);
    }

    /** Takes the gate for a commit or a whole operation: 0 when none was taken, else 1 + ns waited. */
    private long enter(Object ops, boolean operation) {
        TableKey table = keyOf(ops);
        Guard current = table == null ? null : guard();
        if (current == null || !table.catalog().isEmpty() && current.isFloes(null)) {
            return 0; // a shared catalog's commit on floe's own thread is floe's own (its rebuild holds the gate)
        }
        long waited = operation ? current.beforeOperation(table) : current.beforeCommit(table);
        return waited < 0 ? 0 : waited + 1;
    }

    @Override
    public void afterOperation(Object ops, long entered) {
        TableKey table = keyOf(ops);
        if (entered > 0 && table != null) {
            guard().afterOperation(table, entered - 1);
        }
    }

    /** The table {@code ops} commits to, or null when floe does not know it. */
    private TableKey keyOf(Object ops) {
        if (ops instanceof MapDbTableOperations) {
            return TableKey.embedded(((MapDbTableOperations) ops).identifier());
        }
        SharedTables.Table table = shared.of(ops);
        return table == null ? null : new TableKey(table.catalog().key(), table.identifier());
    }

    @Override
    public void tableLoaded(Object catalog, Object identifier, Object table) {
        if (!(table instanceof BaseTable) || !(identifier instanceof TableIdentifier)) {
            return; // metadata tables and the like are never committed to
        }
        if (rest.isServed(catalog)) {
            return; // loaded for a REST request, not a handle the host holds
        }
        Guard current = guard();
        if (current == null) {
            return;
        }
        TableOperations ops = ((BaseTable) table).operations();
        if (ops instanceof MapDbTableOperations) {
            current.tableLoaded(((MapDbTableOperations) ops).identifier(), (Table) table);
            return;
        }
        if (!(catalog instanceof Catalog) || current.isFloes(catalog)) {
            return;
        }
        SharedTables.Table known = shared.loaded((Catalog) catalog, (TableIdentifier) identifier, ops, current);
        if (known != null) {
            current.tableLoaded(new TableKey(known.catalog().key(), known.identifier()), (Table) table);
        }
    }

    @Override
    public void catalogOpened(Object catalog, Object name, Object properties) {
        Guard current = guard();
        if (current == null) {
            return;
        }
        if (catalog instanceof MapDbCatalog) {
            current.catalogOpened((MapDbCatalog) catalog);
            rest.opened((MapDbCatalog) catalog);
        } else if (catalog instanceof Catalog && !current.isFloes(catalog) && properties instanceof Map) {
            @SuppressWarnings("unchecked")
            Map<String, String> props = (Map<String, String>) properties;
            shared.opened((Catalog) catalog, String.valueOf(name), props, current);
        }
    }

    @Override
    public void catalogClosed(Object catalog) {
        if (catalog instanceof MapDbCatalog) {
            rest.closing((MapDbCatalog) catalog);
        }
        Guard current = guard;
        if (current != null
                && catalog instanceof Catalog
                && !(catalog instanceof MapDbCatalog)
                && !current.isFloes(catalog)) {
            current.catalogClosed((Catalog) catalog, EXIT_WAIT);
        }
    }
}
