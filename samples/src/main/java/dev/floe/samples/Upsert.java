package dev.floe.samples;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.CloseableIterable;

/**
 * An ordinary Iceberg upsert (CDC) ingest program, as an upsert sink writes a table: it knows
 * nothing of floe. Every commit is one {@code table.newRowDelta()} that adds the new version of
 * some keys and, per partition, an equality delete on {@code id} of the same keys, which deletes
 * their earlier versions. It loads its catalog and holds its table handle as the sample {@link
 * Ingest} does.
 *
 * <pre>
 * java -cp samples/target/floe-samples.jar dev.floe.samples.Upsert \
 *     &lt;catalog.properties&gt; &lt;namespace.table&gt; &lt;commits&gt; &lt;rows-per-commit&gt; &lt;keys&gt;
 * </pre>
 */
public final class Upsert {
    static final String USAGE = String.join(
            "\n",
            "usage: java -cp floe-samples.jar dev.floe.samples.Upsert \\",
            "           <catalog.properties> <namespace.table> <commits> <rows-per-commit> <keys>",
            "",
            "An ordinary Iceberg upsert ingest: loads the catalog named by 'catalog-impl' in the properties file",
            "(CatalogUtil.loadCatalog), creates the namespace and the table if missing (identifier field id;",
            "columns id, ts, version, device, value, payload), and makes <commits> commits through one table",
            "handle loaded at start. Each commit writes <rows-per-commit> distinct keys drawn from [0, <keys>)",
            "with a seeded java.util.Random, so some keys are new and some update earlier versions, and is one",
            "table.newRowDelta() with, per partition it touches, one Parquet data file of the keys' new rows and",
            "one Parquet equality delete file on id of the same keys (which deletes their earlier versions: it",
            "shares the commit's data sequence number, so it does not delete the rows beside it). The column",
            "version is the number of the commit that wrote the row (counted from 1, on after the versions",
            "already in the table); ts is derived from the key alone, so a key never changes partition. Each",
            "commit's snapshot summary has upsert.commit=<its number>.",
            "",
            "options (system properties):",
            "  -Dupsert.format-version=2  (default) or 3: the format version of a table this host creates",
            "  -Dupsert.seed=N            the seed of the keys each commit writes (default 1)",
            "  -Dupsert.series=PATH       write one CSV row per commit to PATH: commit,endEpochMs,latencyMs",
            "  -Dupsert.scan-manifests=worker-pool  (default) a commit reads the table's manifests on Iceberg's",
            "                             worker pool, whose caller polls for the result every 10 ms (Iceberg's",
            "                             Tasks)",
            "  -Dupsert.scan-manifests=caller  ... on the committing thread (RowDelta.scanManifestsWith an",
            "                             executor that runs each task at once), as a sink with a pool of its",
            "                             own may: about 40 ms less per commit (Iceberg writes the new",
            "                             manifests on its worker pool either way)",
            "  -Dingest.partition=none    (default) how a new table is partitioned: none, hour, day (of ts: keys",
            "                             spread over 4 days of 24 hours) or bucket:N (of id)",
            "  -Dingest.verify=false      skip the read-back at the end (rows=, wrong= skipped)",
            "  -Dingest.stop-file=PATH    stop before the next commit once PATH exists",
            "  -Dingest.pace-ms=N         start a commit at most every N ms (default 0: back to back)",
            "  -Dingest.catalog.KEY=V     override catalog property KEY",
            "  -Dingest.local-fs=nio|hadoop, -Dingest.stacktrace=true: as the sample ingest (Ingest --help)",
            "",
            "While it runs it prints 'progress commits=<done>/<commits> ...' ten times. At the end, on a freshly",
            "loaded table (one version of it), it reads every row back, on that table and on the held handle,",
            "and checks that every key written is there exactly once, with the version of the last commit that",
            "wrote it and every column as written, and nothing else. It prints:",
            "  LAST-REBUILD snapshot=<id> sequence=<n> pinned=<id> pinnedCommit=<n> summary={...}",
            "      the newest snapshot floe's rebuild made (summary key floe.rebuild-of-snapshot: the snapshot",
            "      it pinned; pinnedCommit: the commit of this run that made it); 'LAST-REBUILD none' if none",
            "  DELETES count=<n> <kind>:<data sequence number>:<origin> ...",
            "      every delete file the current snapshot holds: kind eq, pos or dv; origin c<commit> (this",
            "      host's), floe (a file floe wrote) or other",
            "  RESULT commits= rowsPerCommit= keys= rows= wrong= heldWrong= snapshots= rewrites= sinceRewrite=",
            "         dataFiles= deleteFiles=",
            "         eqDeleteFiles= tableDeleteFiles= floeDeleteFiles= lastRebuild= pinnedCommit=",
            "         commitsSinceRebuild= deletesSincePin= commitP50Ms= commitP99Ms= commitMaxMs= elapsedMs=",
            "         scanMs= metadataBytes= historyCollapses= [problem=]",
            "keys: the distinct keys the table should hold; rows: rows read back from the fresh table; wrong:",
            "the rows other than the one latest version of their key, as written (stale versions, duplicates,",
            "keys never written), plus the keys whose latest version is not there; heldWrong: the same of the",
            "held handle; deleteFiles and eqDeleteFiles: the distinct delete files a scan of the",
            "current snapshot applies; tableDeleteFiles: every delete file the snapshot holds; deletesSincePin:",
            "after the last rebuild, the table holds only the equality deletes of commits after its pinned",
            "snapshot, every one of commits after the rebuilt snapshot, and otherwise only position deletes or",
            "deletion vectors floe wrote (ok, violated, none: no rebuild, skipped: the rebuild predates the run);",
            "rewrites and sinceRewrite: as the ingest's (dev.floe.samples.Ingest --help); latencies are of",
            "the commit() call alone; scanMs the time of the fresh table's read-back.",
            "Exit code 0 on success; 1 on a failure or when a check fails (problem= says which, spaces as _); 2",
            "on bad arguments.");

    /** Runs each task on the thread that submits it. */
    private static final ExecutorService CALLER = new AbstractExecutorService() {
        @Override
        public void execute(Runnable task) {
            task.run();
        }

        @Override
        public void shutdown() {}

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return false;
        }
    };

    private final UpsertSettings settings;

    private Upsert(UpsertSettings settings) {
        this.settings = settings;
    }

    public static void main(String[] args) {
        Host.exit(run(args, System.out));
    }

    /** Runs the upsert ingest {@code args} describe, its RESULT line to {@code out}; returns the exit status. */
    public static int run(String[] args, PrintStream out) {
        if (Host.helpAsked(args, USAGE, out)) {
            return 0;
        }
        Upsert upsert;
        try {
            upsert = new Upsert(UpsertSettings.parse(args));
        } catch (IllegalArgumentException e) {
            return Host.badArguments("upsert", e);
        }
        try {
            Map<String, String> result = new LinkedHashMap<>();
            String problem = upsert.execute(result, out);
            if (problem != null) {
                result.put("problem", problem.replaceAll("\\s+", "_"));
            }
            return Host.result("upsert", result, problem, out);
        } catch (Throwable t) {
            return Host.failed("upsert", t);
        }
    }

    /** Runs the ingest, puts the RESULT values in {@code result}; why a check failed, or null. */
    private String execute(Map<String, String> result, PrintStream out) throws Exception {
        IngestSettings ingest = settings.ingest;
        Map<String, String> props = ingest.catalogProperties;
        Catalog catalog = CatalogUtil.loadCatalog(props.get("catalog-impl"), "upsert", props, ingest.hadoopConf());
        try {
            // the host's handle: loaded once here, kept for the whole run
            TableHandle handle = new TableHandle(createIfMissing(catalog, ingest.table));
            long[] lastVersion = new long[settings.keys];
            long firstVersion = 1 + versionsAlreadyIn(handle.table(), lastVersion);
            CommitLog log = new CommitLog(handle.table());
            long[] latencies = new long[ingest.commits];
            long start = System.nanoTime();
            int commits = commitAll(handle, lastVersion, firstVersion, log, latencies, start);
            long elapsedNanos = System.nanoTime() - start;
            result.put("commits", Integer.toString(commits));
            result.put("rowsPerCommit", Integer.toString(ingest.rowsPerCommit));
            return new UpsertReport(ingest.verify, out)
                    .report(catalog, ingest.table, handle, lastVersion, log, latencies, commits, elapsedNanos, result);
        } finally {
            if (catalog instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }

    /** The commit phase; returns the commits made. */
    private int commitAll(
            TableHandle handle, long[] lastVersion, long firstVersion, CommitLog log, long[] latencies, long start)
            throws Exception {
        IngestSettings ingest = settings.ingest;
        UpsertKeys chooser = new UpsertKeys(settings.keys, ingest.rowsPerCommit, settings.seed);
        int progressEvery = Math.max(1, ingest.commits / 10);
        long nextStart = System.nanoTime();
        BufferedWriter series =
                settings.series == null ? null : Files.newBufferedWriter(settings.series, StandardCharsets.UTF_8);
        try {
            if (series != null) {
                series.write("commit,endEpochMs,latencyMs\n");
            }
            int done = 0;
            while (done < ingest.commits && !ingest.stopFileExists()) {
                nextStart = ingest.pace(nextStart);
                long version = firstVersion + done;
                int[] keys = chooser.next();
                Table table = handle.table();
                UpsertWriter.Files files = UpsertWriter.write(table, keys, version);
                log.writing(version, files.deletes());
                long t0 = System.nanoTime();
                try {
                    RowDelta delta = table.newRowDelta();
                    if (settings.scanOnCaller) {
                        delta.scanManifestsWith(CALLER);
                    }
                    files.data().forEach(delta::addRows);
                    files.deletes().forEach(delta::addDeletes);
                    delta.set(CommitLog.COMMIT_KEY, Long.toString(version));
                    delta.commit();
                } catch (RuntimeException e) {
                    throw new IllegalStateException("commit " + version + " failed: " + Ingest.describe(e), e);
                }
                long latency = System.nanoTime() - t0;
                latencies[done++] = latency;
                for (int key : keys) {
                    lastVersion[key] = version;
                }
                handle.observeCommit();
                log.committed(version, table);
                if (series != null) {
                    series.write(String.format(
                            Locale.ROOT, "%d,%d,%.3f%n", done, System.currentTimeMillis(), latency / 1e6));
                }
                if (done % progressEvery == 0 || done == ingest.commits) {
                    Host.progress(done, ingest.commits, start, latency);
                }
            }
            return done;
        } finally {
            if (series != null) {
                series.close();
            }
        }
    }

    /**
     * Reads a table that already has rows: notes each key's version in {@code lastVersion}; returns
     * the highest version, after which this run's commits are numbered.
     */
    private static long versionsAlreadyIn(Table table, long[] lastVersion) throws IOException {
        if (table.currentSnapshot() == null) {
            return 0;
        }
        long highest = 0;
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                long key = (Long) record.getField(UpsertRows.KEY_COLUMN);
                long version = (Long) record.getField("version");
                if (key < 0 || key >= lastVersion.length) {
                    throw new IllegalArgumentException("the table already has key " + key + ", outside [0, "
                            + lastVersion.length + "): give <keys> that covers it");
                }
                lastVersion[(int) key] = Math.max(lastVersion[(int) key], version);
                highest = Math.max(highest, version);
            }
        }
        return highest;
    }

    private Table createIfMissing(Catalog catalog, TableIdentifier id) {
        Host.createNamespace(catalog, id.namespace());
        if (catalog.tableExists(id)) {
            return catalog.loadTable(id);
        }
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(TableProperties.FORMAT_VERSION, Integer.toString(settings.formatVersion));
        try {
            return catalog.createTable(id, UpsertRows.SCHEMA, settings.ingest.spec(UpsertRows.SCHEMA), properties);
        } catch (AlreadyExistsException raced) {
            return catalog.loadTable(id);
        }
    }
}
