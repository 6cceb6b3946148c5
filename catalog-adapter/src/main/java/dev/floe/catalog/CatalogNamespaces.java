package dev.floe.catalog;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;

/**
 * The namespaces of a {@link MapDbCatalog}: created ones (with their properties) and the ones
 * implied by the tables and namespaces inside them, read from the store's mirror and changed in
 * its transactions.
 */
final class CatalogNamespaces {
    private CatalogNamespaces() {}

    static void create(CatalogStore store, Namespace namespace, Map<String, String> metadata) {
        String key = CatalogKeys.namespace(namespace);
        store.write("create namespace " + namespace, tx -> {
            if (tx.namespaces().containsKey(key)) {
                throw new AlreadyExistsException("Namespace already exists: %s", namespace);
            }
            tx.putNamespace(key, metadata);
            return null;
        });
    }

    /** The namespaces one level below {@code namespace}. */
    static List<Namespace> children(CatalogStore store, Namespace namespace) {
        CatalogStore.Snapshot state = store.snapshot();
        requireExists(state, namespace);
        int depth = namespace.length();
        Set<List<String>> children = new TreeSet<>(CatalogNamespaces::compareLevels);
        for (Namespace candidate : known(state.pointers, state.namespaces)) {
            if (CatalogKeys.isDescendant(candidate, namespace)) {
                children.add(List.of(candidate.levels()).subList(0, depth + 1));
            }
        }
        return children.stream()
                .map(levels -> Namespace.of(levels.toArray(new String[0])))
                .collect(Collectors.toList());
    }

    static Map<String, String> properties(CatalogStore store, Namespace namespace) {
        CatalogStore.Snapshot state = store.snapshot();
        if (!exists(state, namespace)) {
            throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
        }
        // a copy that answers containsKey(null) (false) as Iceberg's REST model asks it, unlike Map.of()
        return java.util.Collections.unmodifiableMap(
                new LinkedHashMap<>(state.namespaces.getOrDefault(CatalogKeys.namespace(namespace), Map.of())));
    }

    static boolean drop(CatalogStore store, Namespace namespace) {
        String key = CatalogKeys.namespace(namespace);
        return store.write("drop namespace " + namespace, tx -> {
            String prefix = CatalogKeys.tablesOf(namespace);
            int tables = tx.pointers()
                    .subMap(prefix, true, prefix + CatalogKeys.END, false)
                    .size();
            if (tables > 0) {
                throw new NamespaceNotEmptyException(
                        "Namespace %s is not empty: it contains %d table(s)", namespace, tables);
            }
            long children = known(tx.pointers(), tx.namespaces()).stream()
                    .filter(candidate -> CatalogKeys.isDescendant(candidate, namespace))
                    .count();
            if (children > 0) {
                throw new NamespaceNotEmptyException(
                        "Namespace %s is not empty: it contains %d namespace(s)", namespace, children);
            }
            return tx.removeNamespace(key);
        });
    }

    static boolean updateProperties(CatalogStore store, Namespace namespace, Consumer<Map<String, String>> change) {
        String key = CatalogKeys.namespace(namespace);
        return store.write("update properties of namespace " + namespace, tx -> {
            if (!exists(tx.pointers(), tx.namespaces(), namespace)) {
                throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
            }
            Map<String, String> updated = new LinkedHashMap<>(tx.namespaces().getOrDefault(key, Map.of()));
            change.accept(updated);
            tx.putNamespace(key, updated);
            return true;
        });
    }

    /** Throws unless {@code namespace} is the root or exists. */
    static void requireExists(CatalogStore.Snapshot state, Namespace namespace) {
        if (!namespace.isEmpty() && !exists(state, namespace)) {
            throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
        }
    }

    /**
     * A namespace exists when it was created, or when a table or a created namespace lies inside it.
     */
    static boolean exists(CatalogStore.Snapshot state, Namespace namespace) {
        return exists(state.pointers, state.namespaces, namespace);
    }

    static boolean exists(
            NavigableMap<String, String> pointers,
            NavigableMap<String, Map<String, String>> namespaces,
            Namespace namespace) {
        if (namespaces.containsKey(CatalogKeys.namespace(namespace))) {
            return true;
        }
        if (namespace.isEmpty()) {
            return false; // the root holds tables without being a namespace of its own
        }
        for (Namespace candidate : known(pointers, namespaces)) {
            if (candidate.equals(namespace) || CatalogKeys.isDescendant(candidate, namespace)) {
                return true;
            }
        }
        return false;
    }

    private static Set<Namespace> known(
            NavigableMap<String, String> pointers, NavigableMap<String, Map<String, String>> namespaces) {
        Set<Namespace> known = new HashSet<>();
        namespaces.keySet().forEach(key -> known.add(CatalogKeys.namespace(key)));
        pointers.keySet().forEach(key -> known.add(CatalogKeys.table(key).namespace()));
        known.remove(Namespace.empty());
        return known;
    }

    private static int compareLevels(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }
}
