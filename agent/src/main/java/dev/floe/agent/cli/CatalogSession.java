package dev.floe.agent.cli;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.TableGlobs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/** Opens the catalog a properties file names, as the host does, and refuses anything but floe's. */
final class CatalogSession {
    static final String IMPL = MapDbCatalog.class.getName();

    private CatalogSession() {}

    /** The catalog's properties, relative local {@code warehouse} and {@code uri} made absolute. */
    static Map<String, String> properties(Path file) {
        Properties loaded = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            loaded.load(in);
        } catch (NoSuchFileException e) {
            throw new FloeCli.CliException(FloeCli.NOT_FOUND, "catalog properties file " + file + " does not exist");
        } catch (IOException | IllegalArgumentException e) {
            throw new FloeCli.CliException(FloeCli.FAILED, "cannot read catalog properties file " + file + ": " + e);
        }
        Map<String, String> props = new LinkedHashMap<>();
        for (String key : loaded.stringPropertyNames()) {
            props.put(key, loaded.getProperty(key).trim());
        }
        String impl = props.get("catalog-impl");
        if (!IMPL.equals(impl)) {
            throw new FloeCli.CliException(
                    FloeCli.FAILED,
                    file + " names catalog-impl=" + (impl == null ? "(none)" : impl) + "; floe works on " + IMPL
                            + " catalogs only (catalog-impl=" + IMPL + ")");
        }
        for (String key : List.of("warehouse", "uri")) {
            String value = props.get(key);
            if (value != null && !value.isEmpty() && !value.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*")) {
                props.put(key, Paths.get(value).toAbsolutePath().normalize().toString());
            }
        }
        return props;
    }

    /**
     * Runs one command on the catalog {@code file} names, closing it after and flushing what the
     * command printed; returns the command's exit code.
     */
    static int run(Path file, java.util.function.ToIntFunction<MapDbCatalog> command) {
        try (MapDbCatalog catalog = open(file)) {
            int code = command.applyAsInt(catalog);
            System.out.flush();
            return code;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Opens the catalog; a missing catalog file is reported, never created. */
    static MapDbCatalog open(Path file) {
        Map<String, String> props = properties(file);
        Path catalogFile = catalogFile(props);
        if (catalogFile != null && !Files.exists(catalogFile)) {
            throw new FloeCli.CliException(
                    FloeCli.NOT_FOUND,
                    "no catalog file at " + catalogFile + " (from " + file + "): check 'warehouse' and 'uri'");
        }
        Catalog catalog = CatalogUtil.loadCatalog(IMPL, "floe-cli", props, null);
        if (!(catalog instanceof MapDbCatalog)) {
            throw new FloeCli.CliException(
                    FloeCli.FAILED, file + " loads a " + catalog.getClass().getName() + ", not a " + IMPL);
        }
        return (MapDbCatalog) catalog;
    }

    private static Path catalogFile(Map<String, String> props) {
        String uri = props.get("uri");
        String location = uri != null && !uri.isBlank() ? uri : props.get("warehouse");
        if (location == null || location.isBlank()) {
            return null; // the catalog says what is missing
        }
        Path path;
        if (location.startsWith("file:")) {
            path = Paths.get(java.net.URI.create(location));
        } else if (location.matches("^[A-Za-z][A-Za-z0-9+.-]+://.*")) {
            return null;
        } else {
            path = Paths.get(location);
        }
        return uri != null && !uri.isBlank() ? path : path.resolve(MapDbCatalog.DEFAULT_FILE_NAME);
    }

    /** Every table of the catalog whose {@code namespace.table} matches {@code glob} (* and ?). */
    static List<TableIdentifier> tables(MapDbCatalog catalog, String glob) {
        TableGlobs globs = new TableGlobs(glob == null ? List.of() : List.of(glob));
        List<TableIdentifier> tables = new ArrayList<>();
        collect(catalog, Namespace.empty(), globs, tables);
        tables.sort((a, b) -> a.toString().compareTo(b.toString()));
        return tables;
    }

    private static void collect(
            MapDbCatalog catalog, Namespace namespace, TableGlobs globs, List<TableIdentifier> into) {
        if (!namespace.isEmpty()) {
            for (TableIdentifier table : catalog.listTables(namespace)) {
                if (globs.matches(table)) {
                    into.add(table);
                }
            }
        }
        for (Namespace child : catalog.listNamespaces(namespace)) {
            collect(catalog, child, globs, into);
        }
    }

    static TableIdentifier identifier(String name) {
        TableIdentifier identifier = TableIdentifier.parse(name);
        if (!identifier.hasNamespace()) {
            throw new FloeCli.CliException(
                    FloeCli.USAGE, "table '" + name + "' needs its namespace: <namespace>.<table>, e.g. db.events");
        }
        return identifier;
    }
}
