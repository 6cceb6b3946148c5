package dev.floe.agent.cli;

import dev.floe.agent.AgentConfig;
import dev.floe.catalog.CatalogInUseException;
import dev.floe.catalog.FloeStateFile;
import dev.floe.runtime.guard.SharedCatalog;
import dev.floe.runtime.seam.FloeState;
import dev.floe.runtime.seam.IcebergRebuildCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Any catalog but floe's own (JDBC, REST, Hive, Glue, Nessie, Hadoop), built as Iceberg builds it
 * from {@code catalog-impl} or {@code type}, with floe's records of its tables in the state file
 * under the same key the agent uses ({@link SharedCatalog#keyOf}: the catalog's name and its uri,
 * else warehouse), so the CLI and an agent see the same records. A rebuilt table is committed in
 * place.
 */
final class SharedSession extends CatalogSession {
    private final CatalogFile file;
    private final String name;
    private final String nameSource;
    private final String key;
    private final Path statePath;
    private final FloeStateFile state;

    private SharedSession(
            CatalogFile file, CatalogOption option, Catalog catalog, String key, Path statePath, FloeStateFile state) {
        super(catalog, new IcebergRebuildCatalog(catalog, key, records(state, key)));
        this.file = file;
        this.name = file.name(option.name);
        this.nameSource = file.nameSource(option.name);
        this.key = key;
        this.statePath = statePath;
        this.state = state;
    }

    private static FloeState records(FloeStateFile state, String key) {
        return state == null ? NO_RECORDS : FloeState.of(state).scoped(key);
    }

    /** What a session without a state file reads: nothing. It never writes (see {@link #open}). */
    private static final FloeState NO_RECORDS = FloeState.of(
            section -> new TreeMap<>(),
            (section, key, value) -> {
                throw new IllegalStateException("no state file to record " + section + " " + key + " in");
            },
            (section, key) -> false);

    /**
     * Opens the state file (first: while an agent holds it, nothing else is touched), then the
     * catalog. {@code createState}: a state file that does not exist is created; otherwise there are
     * no records and none is written.
     */
    static SharedSession open(CatalogFile file, CatalogOption option, AgentConfig config, boolean createState) {
        SharedCatalogFacts.requireExists(file);
        String name = file.name(option.name);
        Path statePath = option.stateFile(config);
        FloeStateFile state = null;
        if (createState || Files.exists(statePath)) {
            try {
                state = FloeStateFile.open(statePath);
            } catch (CatalogInUseException e) {
                throw new FloeCli.CliException(
                        FloeCli.IN_USE,
                        "state file " + statePath + " is in use by " + SharedCatalogFacts.holder(e.holder())
                                + ": a process with floe's agent holds it while it runs, with its records of the"
                                + " tables of catalog '" + name + "' and any other it guards; stop that process first,"
                                + " or read live status over JMX: dev.floe:type=Table,*");
            }
        } else {
            System.err.println("floe: note: no state file at " + statePath + ", so no records of floe's (rebuild"
                    + " journals, reclaim jobs): the agent keeps them in its floe.state.file; --state-file names it");
        }
        try {
            if (SharedCatalogFacts.sqliteHeldElsewhere(file)) {
                throw busy(file);
            }
            Catalog catalog = build(file, name);
            SharedSession session = new SharedSession(
                    file, option, catalog, SharedCatalog.keyOf(name, file.properties()), statePath, state);
            session.noteOtherKeys();
            return session;
        } catch (RuntimeException e) {
            if (state != null) {
                state.close();
            }
            throw e;
        }
    }

    private static Catalog build(CatalogFile file, String name) {
        try {
            return CatalogUtil.buildIcebergCatalog(name, file.properties(), hadoopConfiguration());
        } catch (RuntimeException | LinkageError e) {
            if (SharedCatalogFacts.sqliteBusy(e)) {
                throw busy(file);
            }
            boolean missingClass = e instanceof LinkageError
                    || String.valueOf(e.getMessage()).contains("Cannot find constructor")
                    || e.getCause() instanceof ClassNotFoundException;
            throw new FloeCli.CliException(
                    FloeCli.FAILED,
                    "cannot open catalog '" + name + "' (" + file.names() + ", from " + file.file() + "): "
                            + FloeCli.describe(e)
                            + (missingClass ? " (is the catalog's jar, and its driver, on --classpath?)" : ""));
        }
    }

    /** A Hadoop configuration, as a host hands its catalog one (HadoopCatalog needs it). */
    static Object hadoopConfiguration() {
        try {
            return Class.forName("org.apache.hadoop.conf.Configuration", true, SharedSession.class.getClassLoader())
                    .getDeclaredConstructor()
                    .newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            return null; // FloeCli.requireHostLibraries has said Hadoop is missing already
        }
    }

    static FloeCli.CliException busy(CatalogFile file) {
        return new FloeCli.CliException(
                FloeCli.IN_USE,
                "the SQLite database " + file.properties().get("uri") + " (from " + file.file() + ") is open in"
                        + " another process (the ingest?): Iceberg's JdbcCatalog holds a lock on a SQLite file as long"
                        + " as it is open, so one process at a time can use the catalog; stop that process first, or"
                        + " read live status over JMX: dev.floe:type=Table,*");
    }

    /**
     * When the state file holds no records under this catalog's key but does under others, says so
     * on standard error: a name unlike the host's finds none of the agent's records.
     */
    private void noteOtherKeys() {
        if (state == null) {
            return;
        }
        Set<String> keys = new TreeSet<>();
        for (String section : state.sections()) {
            int slash = section.lastIndexOf('/');
            if (slash > 0) {
                keys.add(section.substring(0, slash));
            }
        }
        if (keys.isEmpty() || keys.contains(key)) {
            return;
        }
        String where = key.startsWith(name + "@") ? key.substring(name.length()) : null;
        String sameWhere = where == null
                ? null
                : keys.stream()
                        .filter(k -> k.endsWith(where) && k.length() > where.length())
                        .map(k -> k.substring(0, k.length() - where.length()))
                        .findFirst()
                        .orElse(null);
        System.err.println("floe: note: state file " + statePath + " has no records of this catalog (key '" + key
                + "': name '" + name + "', from " + nameSource + ", and its uri, else warehouse) but has some of "
                + String.join(", ", quoted(keys)) + "; the agent keys a catalog by the name its host gives it"
                + (sameWhere == null
                        ? ": if one of those is this catalog, pass its name with --catalog-name"
                        : ": pass --catalog-name " + sameWhere + " to work on the records of '" + sameWhere + "'"));
    }

    private static List<String> quoted(Iterable<String> names) {
        List<String> quoted = new ArrayList<>();
        names.forEach(n -> quoted.add("'" + n + "'"));
        return quoted;
    }

    @Override
    String label() {
        Map<String, String> props = file.properties();
        String where = props.getOrDefault("uri", props.getOrDefault("warehouse", ""));
        return "'" + name + "' (" + catalog().getClass().getSimpleName() + (where.isEmpty() ? "" : " at " + where)
                + ")";
    }

    @Override
    String where() {
        return " in catalog " + label();
    }

    @Override
    boolean inPlace() {
        return true;
    }

    @Override
    List<String> notes() {
        return List.of(
                state == null
                        ? "floe's records: none (no state file at " + statePath + "; --state-file names it)"
                        : "floe's records: " + statePath + " (catalog key " + key + ")");
    }

    @Override
    String jsonFields() {
        return ",\"catalogName\":" + Text.json(name) + ",\"catalogKey\":" + Text.json(key) + ",\"stateFile\":"
                + Text.json(statePath.toString()) + ",\"stateFileExists\":" + (state != null);
    }

    /** Why a JDBC catalog finds no {@code table} (any table, when null) under this name; else "". */
    @Override
    String hint(TableIdentifier table) {
        if (!SharedCatalogFacts.isJdbc(file)) {
            return "";
        }
        List<String> names = new ArrayList<>(SharedCatalogFacts.jdbcCatalogNames(file.properties(), table));
        names.remove(name);
        if (names.isEmpty()) {
            return "";
        }
        return ": JdbcCatalog keys tables by catalog name, and this database holds "
                + (table == null ? "tables" : table.toString()) + " under catalog "
                + String.join(" and ", quoted(names))
                + " (the name the host gave its catalog), where '" + name + "' is " + nameSource
                + "; pass --catalog-name " + names.get(0);
    }

    @Override
    public void close() {
        try {
            if (catalog() instanceof AutoCloseable closeable) {
                closeable.close();
            }
        } catch (Exception e) {
            System.err.println("floe: warning: closing catalog " + label() + " failed: " + FloeCli.describe(e));
        } finally {
            if (state != null) {
                state.close();
            }
        }
    }
}
