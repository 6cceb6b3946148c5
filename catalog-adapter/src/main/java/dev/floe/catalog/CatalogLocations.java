package dev.floe.catalog;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Where a {@link MapDbCatalog} keeps things, from its properties: the catalog file ({@code uri},
 * or {@code <warehouse>/floe-catalog.db}), the handle cache's size, and the Hadoop configuration
 * for local files when the host gives none.
 */
final class CatalogLocations {
    private CatalogLocations() {}

    /** The handle cache's size from property {@code cache.max-handles}, validated. */
    static int maxHandles(String value) {
        if (value == null) {
            return MapDbCatalog.CACHE_MAX_HANDLES_DEFAULT;
        }
        try {
            int parsed = Integer.parseInt(value.trim());
            if (parsed >= 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("MapDbCatalog property '"
                + MapDbCatalog.CACHE_MAX_HANDLES
                + "' is '"
                + value
                + "': expected a whole number of handles, 0 or more (default "
                + MapDbCatalog.CACHE_MAX_HANDLES_DEFAULT
                + ")");
    }

    /** The local file named by {@code uri}, or {@code <warehouse>/floe-catalog.db}. */
    static Path catalogFile(String uri, String warehouse) {
        if (uri != null && !uri.isBlank()) {
            return localPath(uri, "uri");
        }
        return localPath(warehouse, "warehouse").resolve(MapDbCatalog.DEFAULT_FILE_NAME);
    }

    private static Path localPath(String location, String property) {
        if (location.startsWith("file:")) {
            return Paths.get(java.net.URI.create(location));
        }
        if (location.matches("^[A-Za-z][A-Za-z0-9+.-]+://.*")) {
            throw new IllegalArgumentException("MapDbCatalog keeps its pointers in a local MapDB file, and '"
                    + property
                    + "' ("
                    + location
                    + ") is not local: set 'uri' to a local path for the catalog file");
        }
        return Paths.get(location);
    }

    /** A Hadoop configuration for local files, made reflectively so Hadoop stays the host's. */
    static final class LocalHadoopConf {
        private LocalHadoopConf() {}

        /** A configuration, or null when Hadoop is absent and {@code required} is false. */
        static Object create(boolean required) {
            Class<?> type;
            try {
                type = Class.forName("org.apache.hadoop.conf.Configuration", true, CatalogUtil.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                if (!required) {
                    return null;
                }
                throw new IllegalArgumentException(
                        "MapDbCatalog uses Iceberg's HadoopFileIO unless 'io-impl' names another FileIO, and"
                                + " Hadoop is not on the class path: add hadoop-client-api and"
                                + " hadoop-client-runtime, or set io-impl",
                        e);
            }
            try {
                Object conf = type.getConstructor().newInstance();
                Method set = type.getMethod("set", String.class, String.class);
                // write local files without .crc side files, which no table metadata references
                set.invoke(conf, "fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
                set.invoke(conf, "fs.file.impl.disable.cache", "true");
                return conf;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Cannot create a Hadoop Configuration", e);
            }
        }
    }

    /**
     * Where a new table goes: under its namespace's {@code location} property if it has one, else
     * {@code <warehouse>/<namespace levels>/<table>}.
     */
    static String tableLocation(String warehouse, Map<String, String> namespaceProperties, TableIdentifier identifier) {
        String namespaceLocation = namespaceProperties == null ? null : namespaceProperties.get("location");
        if (namespaceLocation != null) {
            return namespaceLocation.replaceAll("/+$", "") + "/" + identifier.name();
        }
        List<String> parts = new ArrayList<>();
        parts.add(warehouse);
        Collections.addAll(parts, identifier.namespace().levels());
        parts.add(identifier.name());
        return String.join("/", parts);
    }
}
