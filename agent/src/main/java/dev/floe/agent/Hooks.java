package dev.floe.agent;

import dev.floe.bootstrap.FloeBridge;
import dev.floe.catalog.MapDbCatalog;
import dev.floe.catalog.MapDbTableOperations;
import dev.floe.runtime.Guard;
import dev.floe.runtime.GuardSettings;
import java.time.Clock;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One class loader's guard, behind the bridge: {@link LoaderGuards} creates one per class loader
 * that defines {@code MapDbTableOperations}, in an {@link dev.floe.agent.boot.IsolatingLoader} over
 * that loader, so this class and the runtime it calls link against that loader's Iceberg and
 * catalog. It checks what it is handed and hands off to the runtime's {@link Guard}, which is
 * created on first use (the host's first commit or catalog), so nothing of the host (its logging,
 * its Iceberg) is touched before the host touches it.
 *
 * <p>When this loader's Iceberg is a version floe does not support, or the configured prune class
 * is not usable here, one line says so and every method does nothing.
 */
public final class Hooks implements FloeBridge.Dispatcher {
    private final GuardSettings settings;
    private final String jmxSuffix;
    private volatile Guard guard;

    /** Called reflectively by {@link LoaderGuards}, with JDK types only. */
    public Hooks(Map<String, String> config, String source, String jmxSuffix, String loaderName, String instrumented) {
        this.jmxSuffix = jmxSuffix;
        this.settings = settingsFor(config, source, loaderName, instrumented);
    }

    private static GuardSettings settingsFor(
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
            GuardSettings settings = AgentConfig.parse(config, source, here).settings();
            AgentLog.info(
                    "guarding Iceberg " + iceberg.version() + " in " + loaderName + ": instrumented " + instrumented);
            return settings;
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
                    current = new Guard(settings, Clock.systemUTC(), jmxSuffix);
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
    public void afterCommit(Object ops, Object metadata, long entered, Throwable thrown) {
        if (entered <= 0 || !(ops instanceof MapDbTableOperations)) {
            return;
        }
        MapDbTableOperations mapDbOps = (MapDbTableOperations) ops;
        TableMetadata committed = metadata instanceof TableMetadata ? (TableMetadata) metadata : null;
        guard().afterCommit(mapDbOps, committed, thrown == null, entered - 1);
    }

    @Override
    public long beforeOperation(Object ops) {
        return enter(ops, true);
    }

    /** Takes the gate for a commit or a whole operation: 0 when none was taken, else 1 + ns waited. */
    private long enter(Object ops, boolean operation) {
        if (!(ops instanceof MapDbTableOperations)) {
            return 0;
        }
        Guard current = guard();
        if (current == null) {
            return 0;
        }
        TableIdentifier table = ((MapDbTableOperations) ops).identifier();
        long waited = operation ? current.beforeOperation(table) : current.beforeCommit(table);
        return waited < 0 ? 0 : waited + 1;
    }

    @Override
    public void afterOperation(Object ops, long entered) {
        if (entered > 0 && ops instanceof MapDbTableOperations) {
            guard().afterOperation(((MapDbTableOperations) ops).identifier(), entered - 1);
        }
    }

    @Override
    public void tableLoaded(Object table) {
        if (table instanceof HasTableOperations
                && ((HasTableOperations) table).operations() instanceof MapDbTableOperations) {
            Guard current = guard();
            if (current != null) {
                MapDbTableOperations ops = (MapDbTableOperations) ((HasTableOperations) table).operations();
                current.tableLoaded(ops.identifier(), (Table) table);
            }
        }
    }

    @Override
    public void catalogOpened(Object catalog) {
        Guard current = guard();
        if (current != null && catalog instanceof MapDbCatalog) {
            current.catalogOpened((MapDbCatalog) catalog);
        }
    }
}
