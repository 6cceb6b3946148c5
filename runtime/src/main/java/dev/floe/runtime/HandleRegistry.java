package dev.floe.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table handles a host holds, tracked weakly so tracking never keeps a handle alive, and at
 * most {@code maxHandles} of them (past that, new handles are simply not tracked). After a swap
 * every tracked handle of the table is refreshed, so none keeps pinning the retired metadata.
 */
public final class HandleRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(HandleRegistry.class);

    private final int maxHandles;
    private final Map<Table, TableKey> handles = new WeakHashMap<>();

    public HandleRegistry(int maxHandles) {
        this.maxHandles = maxHandles;
    }

    /** Starts tracking {@code table} as a handle of {@code identifier}, if there is room. */
    public synchronized void track(TableKey identifier, Table table) {
        if (handles.size() < maxHandles || handles.containsKey(table)) {
            handles.put(table, identifier);
        }
    }

    /** How many live handles of {@code identifier} are tracked. */
    public synchronized int tracked(TableKey identifier) {
        return (int) handles.values().stream().filter(identifier::equals).count();
    }

    /** Refreshes every tracked handle of {@code identifier}; returns how many were refreshed. */
    public int reload(TableKey identifier) {
        List<Table> tables = new ArrayList<>();
        synchronized (this) {
            handles.forEach((table, id) -> {
                if (id.equals(identifier)) {
                    tables.add(table);
                }
            });
        }
        int reloaded = 0;
        for (Table table : tables) {
            try {
                table.refresh();
                reloaded += 1;
            } catch (RuntimeException e) {
                LOG.warn("floe: could not refresh a handle of {} after its rebuild: {}", identifier, e.toString());
            }
        }
        return reloaded;
    }
}
