package dev.floe.agent.cli;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * What the CLI can tell of a catalog other than floe's own before and beside Iceberg: whether its
 * local database or warehouse is there (floe never creates a catalog), which catalog names a JDBC
 * catalog's database holds tables under (a wrong name finds none), a SQLite database locked by
 * another process, and which process holds floe's state file.
 */
final class SharedCatalogFacts {
    static final String JDBC_CATALOG = "org.apache.iceberg.jdbc.JdbcCatalog";
    static final String HADOOP_CATALOG = "org.apache.iceberg.hadoop.HadoopCatalog";
    private static final String SQLITE = "jdbc:sqlite:";

    private SharedCatalogFacts() {}

    static boolean isJdbc(CatalogFile file) {
        return JDBC_CATALOG.equals(file.properties().get(CatalogFile.IMPL))
                || "jdbc".equalsIgnoreCase(file.properties().getOrDefault(CatalogFile.TYPE, ""));
    }

    static boolean isHadoop(CatalogFile file) {
        return HADOOP_CATALOG.equals(file.properties().get(CatalogFile.IMPL))
                || "hadoop".equalsIgnoreCase(file.properties().getOrDefault(CatalogFile.TYPE, ""));
    }

    /** Fails (exit 4) when the catalog's local SQLite file or Hadoop warehouse is not there. */
    static void requireExists(CatalogFile file) {
        Map<String, String> props = file.properties();
        String uri = props.getOrDefault("uri", "");
        if (isJdbc(file) && uri.startsWith(SQLITE)) {
            Path database = sqliteFile(uri);
            if (database != null && !Files.isRegularFile(database)) {
                throw new FloeCli.CliException(
                        FloeCli.NOT_FOUND,
                        "no SQLite database at " + database + " (uri=" + uri + " in " + file.file()
                                + "): check 'uri'; floe never creates a catalog");
            }
        }
        String warehouse = props.getOrDefault("warehouse", "");
        if (isHadoop(file) && !warehouse.isEmpty()) {
            Path directory = localPath(warehouse);
            if (directory != null && !Files.isDirectory(directory)) {
                throw new FloeCli.CliException(
                        FloeCli.NOT_FOUND,
                        "no warehouse directory at " + directory + " (warehouse=" + warehouse + " in " + file.file()
                                + "): check 'warehouse'; floe never creates a catalog");
            }
        }
    }

    /**
     * True when another connection holds the catalog's SQLite database (a running host: Iceberg's
     * JdbcCatalog keeps a read lock on it as long as it is open), told by asking for an exclusive
     * lock and giving it back at once; false for any other catalog. Asked before the CLI opens the
     * catalog itself, whose own read lock would answer instead.
     */
    static boolean sqliteHeldElsewhere(CatalogFile file) {
        String uri = file.properties().getOrDefault("uri", "");
        if (!isJdbc(file) || !uri.startsWith(SQLITE) || sqliteFile(uri) == null) {
            return false;
        }
        try (Connection db = DriverManager.getConnection(uri);
                java.sql.Statement statement = db.createStatement()) {
            statement.execute("PRAGMA busy_timeout = 250");
            try {
                statement.execute("BEGIN EXCLUSIVE");
            } catch (SQLException e) {
                return sqliteBusy(e);
            }
            statement.execute("ROLLBACK");
            return false;
        } catch (SQLException | RuntimeException e) {
            return false; // opening the catalog says what is wrong
        }
    }

    /** The local file of a {@code jdbc:sqlite:} URI; null for an in-memory or URI-form database. */
    private static Path sqliteFile(String uri) {
        String rest = uri.substring(SQLITE.length());
        int query = rest.indexOf('?');
        rest = query < 0 ? rest : rest.substring(0, query);
        if (rest.isEmpty() || rest.startsWith(":") || rest.startsWith("file:")) {
            return null;
        }
        try {
            return Path.of(rest).toAbsolutePath();
        } catch (InvalidPathException e) {
            return null;
        }
    }

    private static Path localPath(String location) {
        try {
            if (location.startsWith("file:")) {
                return Path.of(java.net.URI.create(location));
            }
            return location.matches("^[A-Za-z][A-Za-z0-9+.-]+:.*") ? null : Path.of(location);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The catalog names a JDBC catalog's database holds {@code table} under (any table, when null),
     * read with a connection of its own as Iceberg's JdbcCatalog makes one; empty when that cannot be
     * read. Only reads: beside an open SQLite catalog, a reader is let in.
     */
    static List<String> jdbcCatalogNames(Map<String, String> props, TableIdentifier table) {
        List<String> names = new ArrayList<>();
        Properties connection = new Properties();
        props.forEach((key, value) -> {
            if (key.startsWith("jdbc.")) {
                connection.setProperty(key.substring("jdbc.".length()), value);
            }
        });
        String sql = "SELECT DISTINCT catalog_name FROM iceberg_tables"
                + (table == null ? "" : " WHERE table_namespace = ? AND table_name = ?")
                + " ORDER BY catalog_name";
        try (Connection db = DriverManager.getConnection(props.get("uri"), connection);
                PreparedStatement query = db.prepareStatement(sql)) {
            if (table != null) {
                query.setString(1, String.join(".", table.namespace().levels()));
                query.setString(2, table.name());
            }
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        } catch (SQLException | RuntimeException e) {
            return List.of(); // no hint, then: the message says what the catalog said
        }
        return names;
    }

    /** True when {@code e} or a cause is SQLite refusing a locked database. */
    static boolean sqliteBusy(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains("SQLITE_BUSY") || message.contains("database is locked")) {
                return true;
            }
        }
        return false;
    }

    /** "process 1234 (java -javaagent:... )", or "another process" when the holder is not known. */
    static String holder(OptionalLong pid) {
        if (pid.isEmpty()) {
            return "another process";
        }
        String command = ProcessHandle.of(pid.getAsLong())
                .flatMap(p -> p.info().commandLine().or(() -> p.info().command()))
                .map(c -> c.length() > 160 ? c.substring(0, 157) + "..." : c)
                .orElse(null);
        return "process " + pid.getAsLong() + (command == null ? "" : " (" + command + ")");
    }
}
