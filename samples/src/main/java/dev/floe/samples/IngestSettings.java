package dev.floe.samples;

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
import org.apache.iceberg.catalog.TableIdentifier;

/** The sample ingest's command line and system properties, checked (see {@link Ingest#USAGE}). */
public final class IngestSettings {
    final Map<String, String> catalogProperties;
    final TableIdentifier table;
    final int commits;
    final int rowsPerCommit;
    final int threads;
    final boolean singleHandle;
    final boolean verify;
    /** Whether the read-back checks only this run's own ids (other writers append too). */
    final boolean verifyOwn;
    /** Whether every version the table holds is read back at the end ({@link TableFacts#versions}). */
    final boolean checkVersions = Boolean.getBoolean("ingest.check-versions");
    /** The first id of this run, or -1: after the rows already in the table. */
    final long firstId;
    /** The file whose appearance stops the run before its next commit, or null. */
    final Path stopFile;
    /** The least milliseconds from the start of one commit of a thread to the start of its next. */
    final long paceMillis;

    final boolean nioLocalFs;
    /** How a new table is partitioned ({@code -Dingest.partition}): none, hour, day or bucket:N. */
    final String partition;

    private IngestSettings(String[] args) {
        if (args.length != 5) {
            throw new IllegalArgumentException("expected 5 arguments <catalog.properties> <namespace.table> <commits>"
                    + " <rows-per-commit> <threads>, got "
                    + args.length);
        }
        catalogProperties = catalogProperties(Paths.get(args[0]));
        if (!args[1].contains(".") || args[1].startsWith(".") || args[1].endsWith(".")) {
            throw new IllegalArgumentException(
                    "table '" + args[1] + "' must be named <namespace>.<table>, e.g. demo.events");
        }
        table = TableIdentifier.parse(args[1]);
        commits = positive("commits", args[2]);
        rowsPerCommit = positive("rows-per-commit", args[3]);
        threads = Math.min(positive("threads", args[4]), commits);
        singleHandle = choice("ingest.handle", "thread", "single").equals("single");
        String verify = System.getProperty("ingest.verify", "true").trim();
        if (!verify.equalsIgnoreCase("true") && !verify.equalsIgnoreCase("false") && !verify.equals("own")) {
            throw new IllegalArgumentException("-Dingest.verify=" + verify + " is not true, false or own");
        }
        this.verifyOwn = verify.equals("own");
        this.verify = verifyOwn || Boolean.parseBoolean(verify);
        String first = System.getProperty("ingest.first-id");
        if (first == null || first.isBlank()) {
            firstId = -1;
        } else {
            try {
                firstId = Long.parseLong(first.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-Dingest.first-id=" + first + " is not a whole number >= 0");
            }
            if (firstId < 0) {
                throw new IllegalArgumentException("-Dingest.first-id=" + first + " is not a whole number >= 0");
            }
        }
        String stop = System.getProperty("ingest.stop-file");
        stopFile = stop == null || stop.isBlank() ? null : Paths.get(stop.trim());
        paceMillis = option("ingest.pace-ms", 0, 0);
        nioLocalFs = choice("ingest.local-fs", "nio", "hadoop").equals("nio");
        partition = System.getProperty("ingest.partition", "none").trim();
        spec(); // a bad value is refused before anything runs
    }

    /** The partition spec of a table this ingest creates. */
    org.apache.iceberg.PartitionSpec spec() {
        return spec(Events.SCHEMA);
    }

    /** {@link #spec()} of a table of {@code schema}, which has the columns {@code id} and {@code ts}. */
    org.apache.iceberg.PartitionSpec spec(org.apache.iceberg.Schema schema) {
        org.apache.iceberg.PartitionSpec.Builder spec = org.apache.iceberg.PartitionSpec.builderFor(schema);
        if (partition.equals("none")) {
            return spec.build();
        } else if (partition.equals("hour")) {
            return spec.hour("ts").build();
        } else if (partition.equals("day")) {
            return spec.day("ts").build();
        } else if (partition.startsWith("bucket:")) {
            try {
                return spec.bucket("id", Integer.parseInt(partition.substring("bucket:".length())))
                        .build();
            } catch (IllegalArgumentException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException("-Dingest.partition=" + partition + " is not none, hour, day or bucket:N");
    }

    /**
     * Waits until {@code nextStart} when the run is paced ({@code -Dingest.pace-ms}); returns when the
     * commit after this one may start.
     */
    long pace(long nextStart) throws InterruptedException {
        if (paceMillis == 0) {
            return nextStart;
        }
        long wait = nextStart - System.nanoTime();
        if (wait > 0) {
            java.util.concurrent.TimeUnit.NANOSECONDS.sleep(wait);
        }
        return Math.max(nextStart, System.nanoTime()) + paceMillis * 1_000_000;
    }

    /** Whether {@code -Dingest.stop-file} names a file that exists: no further commit. */
    boolean stopFileExists() {
        return stopFile != null && Files.exists(stopFile);
    }

    /** The settings {@code args} and the {@code ingest.*} system properties give. */
    public static IngestSettings parse(String[] args) {
        return new IngestSettings(args);
    }

    /** The Hadoop configuration handed to the catalog, or null to let it choose. */
    Object hadoopConf() {
        return nioLocalFs ? nioHadoopConf() : null;
    }

    /** A Hadoop configuration whose file: file system is {@link NioLocalFileSystem}. */
    public static org.apache.hadoop.conf.Configuration nioHadoopConf() {
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
        conf.set("fs.file.impl", NioLocalFileSystem.class.getName());
        conf.set("fs.file.impl.disable.cache", "true");
        return conf;
    }

    /** A system property that is one of two words, {@code fallback} when unset. */
    public static String choice(String key, String fallback, String other) {
        String value = System.getProperty(key, fallback).trim();
        if (!value.equals(fallback) && !value.equals(other)) {
            throw new IllegalArgumentException(
                    "-D" + key + "=" + value + " is not '" + fallback + "' (the default) or '" + other + "'");
        }
        return value;
    }

    /** A whole-number system property, at least {@code min}; {@code fallback} when unset. */
    public static long option(String key, long fallback, long min) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            long n = Long.parseLong(value.trim());
            if (n >= min && n <= Integer.MAX_VALUE) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("-D" + key + "=" + value + " is not a whole number >= " + min);
    }

    private static int positive(String name, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + " must be a whole number >= 1, got '" + value + "'");
    }

    /**
     * The catalog properties in {@code file}, overridden by {@code -Dingest.catalog.KEY=V}, with a
     * relative local {@code warehouse} or {@code uri} resolved against the working directory.
     */
    public static Map<String, String> catalogProperties(Path file) {
        Properties loaded = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            loaded.load(in);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("catalog properties file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + Ingest.describe(e));
        }
        Map<String, String> props = new LinkedHashMap<>();
        for (String key : loaded.stringPropertyNames()) {
            props.put(key, loaded.getProperty(key).trim());
        }
        String prefix = "ingest.catalog.";
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith(prefix) && key.length() > prefix.length()) {
                props.put(
                        key.substring(prefix.length()), System.getProperty(key).trim());
            }
        }
        String impl = props.get("catalog-impl");
        if (impl == null || impl.isEmpty()) {
            throw new IllegalArgumentException(
                    file + " names no catalog-impl (e.g. catalog-impl=dev.floe.catalog.MapDbCatalog)");
        }
        for (String key : List.of("warehouse", "uri")) {
            String value = props.get(key);
            if (value != null && !value.isEmpty() && !value.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*")) {
                props.put(key, Paths.get(value).toAbsolutePath().normalize().toString());
            }
        }
        return props;
    }
}
