package dev.floe.samples;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The upsert host's command line and system properties, checked (see {@link Upsert#USAGE}). What it
 * shares with the sample ingest (the catalog file and its {@code -Dingest.catalog.*} overrides, the
 * table's name, commits and rows per commit, {@code -Dingest.partition}, {@code -Dingest.pace-ms},
 * {@code -Dingest.stop-file}, {@code -Dingest.local-fs}, {@code -Dingest.verify}) is read by {@link
 * IngestSettings}, as one writer thread.
 */
final class UpsertSettings {
    final IngestSettings ingest;
    /** Keys are drawn from {@code [0, keys)}. */
    final int keys;
    /** The format version of a table this host creates: 2 or 3. */
    final int formatVersion;
    /** The seed of the keys each commit writes. */
    final long seed;
    /** Where each commit's end time and latency go, one CSV row each; null: nowhere. */
    final Path series;
    /** Whether a commit reads the table's manifests on the committing thread, not on Iceberg's worker pool. */
    final boolean scanOnCaller;

    private UpsertSettings(String[] args) {
        if (args.length != 5) {
            throw new IllegalArgumentException("expected 5 arguments <catalog.properties> <namespace.table> <commits>"
                    + " <rows-per-commit> <keys>, got "
                    + args.length);
        }
        String verify = System.getProperty("ingest.verify", "true").trim();
        if (!verify.equalsIgnoreCase("true") && !verify.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("-Dingest.verify=" + verify + " is not true or false");
        }
        // the last argument of the sample ingest is its threads: this host commits from one
        ingest = IngestSettings.parse(new String[] {args[0], args[1], args[2], args[3], "1"});
        try {
            keys = Integer.parseInt(args[4].trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("keys must be a whole number >= 1, got '" + args[4] + "'");
        }
        if (keys < 1) {
            throw new IllegalArgumentException("keys must be a whole number >= 1, got '" + args[4] + "'");
        }
        if (ingest.rowsPerCommit > keys) {
            throw new IllegalArgumentException("rows-per-commit (" + ingest.rowsPerCommit + ") must be at most keys ("
                    + keys + "): a commit writes each of its keys once");
        }
        formatVersion = (int) IngestSettings.option("upsert.format-version", 2, 2);
        if (formatVersion > 3) {
            throw new IllegalArgumentException("-Dupsert.format-version=" + formatVersion + " is not 2 or 3");
        }
        String seedText = System.getProperty("upsert.seed", "1").trim();
        try {
            seed = Long.parseLong(seedText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-Dupsert.seed=" + seedText + " is not a whole number");
        }
        String seriesPath = System.getProperty("upsert.series");
        series = seriesPath == null || seriesPath.isBlank() ? null : Paths.get(seriesPath.trim());
        scanOnCaller = IngestSettings.choice("upsert.scan-manifests", "worker-pool", "caller")
                .equals("caller");
        ingest.spec(UpsertRows.SCHEMA); // a bad -Dingest.partition is refused before anything runs
    }

    static UpsertSettings parse(String[] args) {
        return new UpsertSettings(args);
    }
}
