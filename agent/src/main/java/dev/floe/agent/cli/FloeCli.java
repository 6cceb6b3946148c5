package dev.floe.agent.cli;

import dev.floe.catalog.CatalogFileException;
import dev.floe.catalog.CatalogInUseException;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The operator CLI: {@code java -jar floe-agent.jar <command>}. See docs/cli.md.
 *
 * <p>The agent jar carries no Iceberg, Parquet or Hadoop: those are the host's. When they are not
 * on this JVM's class path already, {@code --classpath <entries>} (or the {@code FLOE_CLASSPATH}
 * environment variable) names them, and the CLI starts itself again in a class loader over this jar
 * and those entries. This class itself touches no Iceberg class, so {@code --help} works anywhere.
 */
@Command(
        name = "floe",
        mixinStandardHelpOptions = true,
        versionProvider = FloeCli.Version.class,
        subcommands = {
            StatusCommand.class,
            CompactCommand.class,
            ReclaimCommand.class,
            RecoverCommand.class,
            CommandLine.HelpCommand.class
        },
        description = "Operate floe by hand: see what it does to the tables of a catalog (floe's MapDbCatalog, or any"
                + " Iceberg catalog: JDBC, REST, Hadoop, Hive, ...); compact, reclaim or recover while the ingest"
                + " process is stopped. Every command takes --help.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ok",
            "1:the operation failed (the message says why)",
            "2:usage error",
            "3:the catalog file, floe's state file or a SQLite catalog is in use by a running process",
            "4:no such table, or no catalog file (or database, or warehouse)",
            "5:Iceberg, Parquet or Hadoop not found on the class path"
        })
public final class FloeCli implements Runnable {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int IN_USE = 3;
    public static final int NOT_FOUND = 4;
    public static final int NO_ICEBERG = 5;

    static final String CLASSPATH_ENV = "FLOE_CLASSPATH";
    static final String CLASSPATH_OPTION = "--classpath";

    /** Classes the commands need from the host's libraries, with the jar each comes from. */
    private static final String[][] REQUIRED = {
        {"org/apache/iceberg/CatalogUtil.class", "iceberg-core"},
        {"org/apache/iceberg/data/IcebergGenerics.class", "iceberg-data"},
        {"org/apache/iceberg/parquet/Parquet.class", "iceberg-parquet"},
        {"org/apache/parquet/hadoop/ParquetWriter.class", "parquet-hadoop"},
        {"org/apache/hadoop/conf/Configuration.class", "hadoop-client-api"},
    };

    private static volatile String givenClassPath;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Shared by every command: the host's libraries. */
    static final class ClassPathOption {
        @Option(
                names = CLASSPATH_OPTION,
                paramLabel = "<entries>",
                scope = ScopeType.INHERIT,
                description = "The host's Iceberg, Parquet and Hadoop jars, when they are not on this JVM's class path:"
                        + " entries separated by '${sys:path.separator}', each a jar, a folder or folder/*."
                        + " Default: the FLOE_CLASSPATH environment variable.")
        String classPath;
    }

    @CommandLine.Mixin
    ClassPathOption classPathOption;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "Missing command: status, compact, reclaim or recover");
    }

    public static void main(String[] args) {
        System.exit(launch(args));
    }

    /** Runs the CLI, in a class loader over the host's libraries when they are not visible here. */
    static int launch(String[] args) {
        ClassLoader own = FloeCli.class.getClassLoader();
        if (missing(own).isEmpty()) {
            return execute(args);
        }
        String classPath = classPathArgument(args);
        if (classPath == null || classPath.isBlank()) {
            return execute(args); // --help still works; a command says what is missing
        }
        return HostLoader.run(args, classPath);
    }

    /** Parses and runs {@code args} in this class loader; the exit code. */
    public static int execute(String[] args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            // the runtime logs each step at INFO for a host's log; the CLI prints its own report
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        String nativeHadoop = "org.slf4j.simpleLogger.log.org.apache.hadoop.util.NativeCodeLoader";
        if (System.getProperty(nativeHadoop) == null) {
            System.setProperty(nativeHadoop, "error");
        }
        givenClassPath = classPathArgument(args);
        CommandLine cli = new CommandLine(new FloeCli());
        cli.setExecutionExceptionHandler(FloeCli::handle);
        return cli.execute(args);
    }

    private static int handle(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        PrintWriter err = cli.getErr();
        CatalogInUseException inUse = inUse(e);
        if (inUse != null) {
            err.println(inUse(inUse.file()));
            err.flush();
            return IN_USE;
        }
        if (e instanceof CliException) {
            err.println("floe: " + e.getMessage());
            err.flush();
            return ((CliException) e).code();
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getClass().getName().equals("org.apache.iceberg.exceptions.NoSuchTableException")
                    || t.getClass().getName().equals("org.apache.iceberg.exceptions.NoSuchNamespaceException")) {
                err.println("floe: " + t.getMessage());
                err.flush();
                return NOT_FOUND;
            }
            if (t instanceof CatalogFileException) {
                err.println("floe: " + t.getMessage());
                err.flush();
                return FAILED;
            }
        }
        err.println("floe: " + cli.getCommandName() + " failed: " + describe(e));
        if (Boolean.getBoolean("floe.cli.trace")) {
            e.printStackTrace(err);
        }
        err.flush();
        return FAILED;
    }

    static String inUse(Path file) {
        return "floe: catalog file " + file + " is in use by a running process (the ingest?); stop it"
                + " first, or read live status over JMX (dev.floe:type=Table,*) or, when it serves floe's REST"
                + " endpoint, with status --rest <the URI of floe's start line>";
    }

    /** The CatalogInUseException {@code e} is or was caused by, or null. */
    static CatalogInUseException inUse(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CatalogInUseException) {
                return (CatalogInUseException) t;
            }
        }
        return null;
    }

    static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.toString() : message;
    }

    /** Fails unless the host's libraries are visible; every {@link HostCommand} calls this first. */
    static void requireHostLibraries() {
        List<String> missing = missing(FloeCli.class.getClassLoader());
        if (!missing.isEmpty()) {
            String given = givenClassPath;
            throw new CliException(
                    NO_ICEBERG,
                    "the host's libraries are not on the class path: " + String.join(", ", missing)
                            + " missing ("
                            + (given == null || given.isBlank()
                                    ? "no --classpath and no " + CLASSPATH_ENV
                                    : "looked in " + given)
                            + "). floe-agent.jar carries no Iceberg, Parquet or Hadoop; name the host's jars, e.g."
                            + " java -jar floe-agent.jar --classpath 'samples/target/lib/*' status --catalog <catalog.properties>");
        }
        String unsupported = dev.floe.agent.IcebergSupport.detect(FloeCli.class.getClassLoader())
                .unsupportedReason();
        if (unsupported != null) {
            throw new CliException(NO_ICEBERG, "unsupported Iceberg on the class path: " + unsupported);
        }
    }

    private static List<String> missing(ClassLoader loader) {
        List<String> missing = new ArrayList<>();
        for (String[] required : REQUIRED) {
            if (loader.getResource(required[0]) == null) {
                missing.add(required[1]);
            }
        }
        return missing;
    }

    /** The value of {@code --classpath} in {@code args}, else of {@code FLOE_CLASSPATH}. */
    static String classPathArgument(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--")) {
                break;
            }
            if (args[i].equals(CLASSPATH_OPTION) && i + 1 < args.length) {
                return args[i + 1];
            }
            if (args[i].startsWith(CLASSPATH_OPTION + "=")) {
                return args[i].substring(CLASSPATH_OPTION.length() + 1);
            }
        }
        return System.getenv(CLASSPATH_ENV);
    }

    /** Class path entries: jars, folders of classes and jars, and folder/* (the jars in it). */
    static List<Path> expand(String classPath) throws IOException {
        List<Path> entries = new ArrayList<>();
        for (String raw : classPath.split(File.pathSeparator)) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            boolean wildcard = entry.endsWith("*");
            Path path = Path.of(wildcard ? entry.substring(0, entry.length() - 1) : entry)
                    .toAbsolutePath()
                    .normalize();
            if (!Files.exists(path)) {
                throw new IllegalArgumentException("class path entry " + entry + " (from " + CLASSPATH_OPTION + " or "
                        + CLASSPATH_ENV + ") does not exist");
            }
            if (Files.isDirectory(path)) {
                if (!wildcard) {
                    entries.add(path);
                }
                try (DirectoryStream<Path> jars = Files.newDirectoryStream(path, "*.{jar,JAR}")) {
                    List<Path> sorted = new ArrayList<>();
                    jars.forEach(sorted::add);
                    sorted.sort(null);
                    entries.addAll(sorted);
                }
            } else {
                entries.add(path);
            }
        }
        return entries;
    }

    /** A failure the CLI reports in one line, with its exit code. */
    static final class CliException extends RuntimeException {
        private final int code;

        CliException(int code, String message) {
            super(message);
            this.code = code;
        }

        int code() {
            return code;
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = FloeCli.class.getPackage().getImplementationVersion();
            return new String[] {"floe " + (version == null ? "(development build)" : version)};
        }
    }
}
