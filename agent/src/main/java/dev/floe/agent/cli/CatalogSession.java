package dev.floe.agent.cli;

import dev.floe.agent.AgentConfig;
import dev.floe.runtime.guard.TableGlobs;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.upkeep.Reclaimer;
import dev.floe.runtime.upkeep.Recovery;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The catalog a properties file names, opened as the host opens it, with floe's records of its
 * tables: floe's own {@code MapDbCatalog} ({@link EmbeddedSession}, records in the catalog file) or
 * any other Iceberg catalog ({@link SharedSession}, records in floe's state file, rebuilt in place).
 * The commands work on this, not on one catalog class.
 */
abstract class CatalogSession implements AutoCloseable {
    private final Catalog catalog;
    private final RebuildCatalog rebuild;

    /** {@code rebuild}: {@code catalog} as the rebuild, the reclaim and the recovery see it. */
    CatalogSession(Catalog catalog, RebuildCatalog rebuild) {
        this.catalog = catalog;
        this.rebuild = rebuild;
    }

    /** The catalog as the rebuild, the reclaim and the recovery see it. */
    RebuildCatalog rebuild() {
        return rebuild;
    }

    /** The catalog itself, for listing tables. */
    final Catalog catalog() {
        return catalog;
    }

    /** How the output names the catalog, after "catalog ". */
    abstract String label();

    /** Where the table was looked for, as the "no table" messages end: " in <file>", " at <uri>". */
    abstract String where();

    /** True when a rebuilt table is committed in place (every catalog but floe's own). */
    abstract boolean inPlace();

    /** Why the catalog finds no {@code table} (any table, when null), after the message; "" when nothing tells. */
    String hint(TableIdentifier table) {
        return "";
    }

    /** "no table ..." (exit 4), with what can be told of why. */
    FloeCli.CliException noTable(TableIdentifier table) {
        return new FloeCli.CliException(FloeCli.NOT_FOUND, "no table " + table + where() + hint(table));
    }

    /**
     * The listing found no table matching {@code glob} (null: no table at all): the failure to report
     * (exit 4), or null when an empty listing is simply the answer (a catalog without tables).
     */
    FloeCli.CliException nothingListed(String glob) {
        String hint = hint(null);
        if (glob == null && hint.isEmpty()) {
            return null; // an empty catalog: status says so
        }
        return new FloeCli.CliException(
                FloeCli.NOT_FOUND,
                (glob == null ? "catalog " + label() + " lists no table" : "no table matches '" + glob + "'" + where())
                        + hint);
    }

    /** Lines status prints under its header (where floe's records are); none for floe's own catalog. */
    List<String> notes() {
        return List.of();
    }

    /** JSON fields status adds after "catalog" (each {@code ,"key":value}); none for floe's own. */
    String jsonFields() {
        return "";
    }

    /** Closes the catalog (floe's own and a REST one are both {@link Closeable}). */
    @Override
    public void close() {
        try {
            if (catalog instanceof Closeable closeable) {
                closeable.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs one command on the catalog {@code option} names, closing it after and flushing what the
     * command printed; returns the command's exit code. {@code createState}: a state file that does
     * not exist yet is created (compact); otherwise its absence means no records.
     */
    static int run(
            CatalogOption option, AgentConfig config, boolean createState, ToIntFunction<CatalogSession> command) {
        CatalogFile file = CatalogFile.read(option.file);
        try (CatalogSession session = file.embedded()
                ? EmbeddedSession.open(file, option)
                : SharedSession.open(file, option, config, createState)) {
            int code = command.applyAsInt(session);
            System.out.flush();
            return code;
        } catch (RuntimeException e) {
            if (!file.embedded() && !(e instanceof FloeCli.CliException) && SharedCatalogFacts.sqliteBusy(e)) {
                throw SharedSession.busy(file);
            }
            throw e;
        }
    }

    /**
     * Runs {@code command} on the catalog {@code option} names, or, when its file is held by a
     * running process and {@code rest} is given, on that process's REST endpoint.
     */
    static int runOrOverRest(
            CatalogOption option, RestOption rest, AgentConfig config, ToIntFunction<CatalogSession> command) {
        if (!rest.given()) {
            return run(option, config, false, command);
        }
        try {
            return run(option, config, false, command);
        } catch (RuntimeException e) {
            dev.floe.catalog.CatalogInUseException inUse = FloeCli.inUse(e);
            if (inUse == null) {
                throw e;
            }
            try (CatalogSession session = RestSession.open(rest, inUse.file())) {
                int code = command.applyAsInt(session);
                System.out.flush();
                return code;
            }
        }
    }

    /** The live table, loaded uncached; a clear "no table" when there is none. */
    Table load(TableIdentifier table) {
        if (!catalog().tableExists(table)) {
            throw noTable(table);
        }
        return rebuild().loadTableUncached(table);
    }

    /** The reclaim jobs floe's records hold for the catalog's tables, due or not. */
    List<ReclaimJob> pendingReclaims() {
        return new Reclaimer(rebuild()).pending();
    }

    /** Rebuilds a process left unfinished: scratch (or rebuild) name to live table. */
    Map<TableIdentifier, TableIdentifier> unfinished() {
        return Recovery.unfinishedRebuilds(rebuild());
    }

    /** Every table of the catalog whose {@code namespace.table} matches {@code glob} (* and ?). */
    List<TableIdentifier> tables(String glob) {
        TableGlobs globs = new TableGlobs(glob == null ? List.of() : List.of(glob));
        List<TableIdentifier> tables = new ArrayList<>();
        Catalog catalog = catalog();
        if (catalog instanceof SupportsNamespaces) {
            collect((SupportsNamespaces) catalog, Namespace.empty(), globs, tables);
        } else {
            Namespace namespace = literalNamespace(glob);
            if (namespace == null) {
                throw new FloeCli.CliException(
                        FloeCli.USAGE,
                        "catalog " + label() + " cannot list its namespaces: give a table glob with its namespace,"
                                + " e.g. 'db.*'");
            }
            for (TableIdentifier table : catalog.listTables(namespace)) {
                if (globs.matches(table)) {
                    tables.add(table);
                }
            }
        }
        tables.sort((a, b) -> a.toString().compareTo(b.toString()));
        return tables;
    }

    private void collect(
            SupportsNamespaces catalog, Namespace namespace, TableGlobs globs, List<TableIdentifier> into) {
        if (!namespace.isEmpty()) {
            for (TableIdentifier table : catalog().listTables(namespace)) {
                if (globs.matches(table)) {
                    into.add(table);
                }
            }
        }
        for (Namespace child : catalog.listNamespaces(namespace)) {
            collect(catalog, child, globs, into);
        }
    }

    /** The namespace of a glob whose namespace has no wildcard ({@code db.*}: db), else null. */
    private static Namespace literalNamespace(String glob) {
        if (glob == null) {
            return null;
        }
        int dot = glob.lastIndexOf('.');
        String namespace = dot < 0 ? "" : glob.substring(0, dot);
        if (namespace.isEmpty() || namespace.contains("*") || namespace.contains("?")) {
            return null;
        }
        return Namespace.of(namespace.split("\\."));
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
