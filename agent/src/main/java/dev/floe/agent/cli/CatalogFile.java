package dev.floe.agent.cli;

import dev.floe.catalog.MapDbCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A catalog properties file, read as the host reads it: its properties (relative local {@code
 * warehouse} and {@code uri} made absolute, as the sample ingest does), which catalog it names
 * ({@code catalog-impl=<class>} or Iceberg's {@code type=}), and the catalog's name.
 */
record CatalogFile(Path file, Map<String, String> properties) {
    static final String MAPDB = MapDbCatalog.class.getName();
    static final String IMPL = "catalog-impl";
    static final String TYPE = "type";
    /** The catalog's name, when the file carries it (read by the CLI only). */
    static final String NAME = "name";

    static CatalogFile read(Path file) {
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
        String impl = props.getOrDefault(IMPL, "");
        String type = props.getOrDefault(TYPE, "");
        if (impl.isEmpty() && type.isEmpty()) {
            throw new FloeCli.CliException(
                    FloeCli.FAILED,
                    file + " names no catalog: give catalog-impl=<class> (e.g. catalog-impl=" + MAPDB
                            + " or org.apache.iceberg.jdbc.JdbcCatalog) or type=jdbc|rest|hadoop|hive|glue|nessie,"
                            + " as the host loads its catalog");
        }
        if (!impl.isEmpty() && !type.isEmpty()) {
            throw new FloeCli.CliException(
                    FloeCli.FAILED,
                    file + " names both catalog-impl=" + impl + " and type=" + type
                            + "; Iceberg refuses both: keep the one the host uses");
        }
        for (String key : List.of("warehouse", "uri")) {
            String value = props.get(key);
            if (value != null && !value.isEmpty() && !value.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*")) {
                props.put(key, Paths.get(value).toAbsolutePath().normalize().toString());
            }
        }
        return new CatalogFile(file, props);
    }

    /** True for floe's own catalog, whose file holds floe's records too. */
    boolean embedded() {
        return MAPDB.equals(properties.get(IMPL));
    }

    /** What the file names: {@code catalog-impl=...} or {@code type=...}. */
    String names() {
        String impl = properties.getOrDefault(IMPL, "");
        return impl.isEmpty() ? TYPE + "=" + properties.get(TYPE) : IMPL + "=" + impl;
    }

    /**
     * The catalog's name: {@code option} (--catalog-name), else the file's {@code name} property,
     * else the file's name without its extension.
     */
    String name(String option) {
        if (option != null && !option.isBlank()) {
            return option.trim();
        }
        String property = properties.getOrDefault(NAME, "");
        if (!property.isEmpty()) {
            return property;
        }
        String base = file.getFileName().toString();
        int dot = base.lastIndexOf('.');
        return dot > 0 ? base.substring(0, dot) : base;
    }

    /** Where the name came from, for messages. */
    String nameSource(String option) {
        if (option != null && !option.isBlank()) {
            return "--catalog-name";
        }
        return properties.getOrDefault(NAME, "").isEmpty()
                ? "the file's name"
                : "the 'name' property of " + file.getFileName();
    }
}
