package dev.floe.agent;

import dev.floe.runtime.guard.Guard;
import dev.floe.runtime.guard.SharedCatalog;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Which table of which shared catalog a host's table operations commit to. The operations of a
 * JDBC, REST, Hive or Hadoop table do not say; the catalog that handed out the table does, so each
 * table handed out is noted here (weakly: a handle the host drops takes its entry with it) with
 * the catalog as it was initialised.
 *
 * <p>A catalog that wraps another ({@code CachingCatalog}, the REST catalog's session wrapper) hands
 * out the table its inner catalog loaded, which the inner one noted first.
 */
final class SharedTables {
    /** A table of a shared catalog. */
    record Table(SharedCatalog catalog, TableIdentifier identifier) {}

    private final Map<Object, SharedCatalog> catalogs = Collections.synchronizedMap(new WeakHashMap<>());
    private final Map<Object, Table> tables = Collections.synchronizedMap(new WeakHashMap<>());

    /** The table {@code ops} belong to, or null. */
    Table of(Object ops) {
        return ops == null ? null : tables.get(ops);
    }

    /** {@code catalog} was initialised with {@code name} and {@code properties}. */
    void opened(Catalog catalog, String name, Map<String, String> properties, Guard guard) {
        catalogs.put(
                catalog,
                guard.catalogOpened(SharedCatalog.of(catalog, name, properties, hadoopConf(catalog)), catalog));
    }

    /**
     * {@code catalog} handed out {@code identifier}, whose operations are {@code ops}: the table, or
     * null when the catalog was initialised where floe could not see it and does not say how.
     */
    Table loaded(Catalog catalog, TableIdentifier identifier, TableOperations ops, Guard guard) {
        Table known = tables.get(ops);
        if (known != null) {
            return known;
        }
        SharedCatalog shared = catalogs.get(catalog);
        if (shared == null) {
            Map<String, String> properties = propertiesOf(catalog);
            if (properties == null) {
                return null;
            }
            opened(catalog, catalog.name(), properties, guard);
            shared = catalogs.get(catalog);
        }
        Table table = new Table(shared, identifier);
        tables.put(ops, table);
        return table;
    }

    /**
     * The properties of a catalog initialised before floe was attached, as its own {@code
     * properties()} gives them (Iceberg's catalogs have one, some protected); null when it has none.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, String> propertiesOf(Catalog catalog) {
        for (Class<?> type = catalog.getClass(); type != null; type = type.getSuperclass()) {
            try {
                Method method = type.getDeclaredMethod("properties");
                method.setAccessible(true);
                Object properties = method.invoke(catalog);
                return properties instanceof Map && !((Map<?, ?>) properties).isEmpty()
                        ? (Map<String, String>) properties
                        : null;
            } catch (NoSuchMethodException e) {
                // look further up
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    /**
     * The Hadoop configuration the host gave {@code catalog}: its {@code getConf()}, or its field
     * {@code conf} or {@code hadoopConf}; null when it has none.
     */
    static Object hadoopConf(Catalog catalog) {
        try {
            return catalog.getClass().getMethod("getConf").invoke(catalog);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // no getter: look for the field
        }
        for (Class<?> type = catalog.getClass(); type != null; type = type.getSuperclass()) {
            for (String name : new String[] {"conf", "hadoopConf"}) {
                try {
                    Field field = type.getDeclaredField(name);
                    field.setAccessible(true);
                    return field.get(catalog);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // not this one
                }
            }
        }
        return null;
    }
}
