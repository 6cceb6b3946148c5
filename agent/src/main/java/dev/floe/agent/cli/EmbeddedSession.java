package dev.floe.agent.cli;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.seam.MapDbRebuildCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/** floe's own MapDbCatalog: its file holds floe's records too, and a rebuilt table is swapped in. */
final class EmbeddedSession extends CatalogSession {
    private final Path file;

    private EmbeddedSession(MapDbCatalog catalog) {
        super(catalog, new MapDbRebuildCatalog(catalog));
        this.file = catalog.catalogFile();
    }

    /** Opens the catalog; a missing catalog file is reported, never created. */
    static EmbeddedSession open(CatalogFile file, CatalogOption option) {
        if (option.stateFile != null) {
            System.err.println("floe: warning: --state-file is not used: a " + CatalogFile.MAPDB
                    + " keeps floe's records in its catalog file");
        }
        Map<String, String> props = file.properties();
        Path catalogFile = catalogFile(props);
        if (catalogFile != null && !Files.exists(catalogFile)) {
            throw new FloeCli.CliException(
                    FloeCli.NOT_FOUND,
                    "no catalog file at " + catalogFile + " (from " + file.file() + "): check 'warehouse' and 'uri'");
        }
        Catalog catalog = CatalogUtil.loadCatalog(CatalogFile.MAPDB, "floe-cli", props, null);
        if (!(catalog instanceof MapDbCatalog)) {
            throw new FloeCli.CliException(
                    FloeCli.FAILED,
                    file.file() + " loads a " + catalog.getClass().getName() + ", not a " + CatalogFile.MAPDB);
        }
        return new EmbeddedSession((MapDbCatalog) catalog);
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

    @Override
    String label() {
        return file.toString();
    }

    @Override
    String where() {
        return " in " + file;
    }

    @Override
    boolean inPlace() {
        return false;
    }
}
