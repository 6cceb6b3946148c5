package dev.floe.agent.cli;

import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.ReclaimJob;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A MapDbCatalog read over the REST catalog endpoint of the process that holds its file, with
 * Iceberg's own {@link RESTCatalog}: tables and their metadata only. floe's records (reclaim jobs,
 * unfinished rebuilds) are in the held file, so they are not shown, and nothing is changed.
 */
final class RestSession extends CatalogSession {
    private final String uri;
    private final Path file;

    private RestSession(RESTCatalog catalog, String uri, Path file) {
        super(catalog, null);
        this.uri = uri;
        this.file = file;
    }

    /** Connects to the endpoint at {@code option}'s URI; {@code file} is the catalog file it serves. */
    static RestSession open(RestOption option, Path file) {
        String uri = option.endpoint();
        Map<String, String> props = new HashMap<>();
        props.put(CatalogProperties.URI, uri);
        props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.hadoop.HadoopFileIO");
        String token = option.token();
        if (token != null) {
            props.put("token", token);
            props.put("rest.auth.type", "oauth2");
            // never asked: a static token is neither exchanged nor refreshed
            props.put("oauth2-server-uri", uri + "v1/oauth/tokens");
            props.put("token-refresh-enabled", "false");
        }
        RESTCatalog catalog;
        try {
            catalog = (RESTCatalog) CatalogUtil.loadCatalog(
                    RESTCatalog.class.getName(), "floe-cli", props, SharedSession.hadoopConfiguration());
        } catch (RuntimeException e) {
            throw new FloeCli.CliException(
                    FloeCli.FAILED,
                    "the REST catalog endpoint at " + uri + " cannot be read (" + FloeCli.describe(e) + "): check"
                            + " --rest against floe's start line, and --rest-token-file when it asks for a token");
        }
        return new RestSession(catalog, uri, file);
    }

    @Override
    RebuildCatalog rebuild() {
        throw new IllegalStateException("a catalog read over REST is read only");
    }

    @Override
    String label() {
        return file + " (over the REST catalog endpoint at " + uri + ")";
    }

    @Override
    String where() {
        return " at " + uri;
    }

    @Override
    boolean inPlace() {
        return false;
    }

    @Override
    Table load(TableIdentifier table) {
        if (!catalog().tableExists(table)) {
            throw noTable(table);
        }
        return catalog().loadTable(table);
    }

    @Override
    Map<TableIdentifier, TableIdentifier> unfinished() {
        return Map.of(); // the endpoint never lists scratch tables
    }

    @Override
    List<ReclaimJob> pendingReclaims() {
        return List.of(); // in the held file
    }

    @Override
    List<String> notes() {
        return List.of("read over REST while a running process holds the file: floe's reclaim jobs and unfinished"
                + " rebuilds are in the file and not shown");
    }

    @Override
    String jsonFields() {
        return ",\"over\":\"rest\",\"uri\":" + Text.json(uri);
    }
}
