package dev.floe.samples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.HdrHistogram.Histogram;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;

/**
 * An ordinary, continuously-appending Iceberg ingest program. It knows nothing of floe: it loads
 * whatever catalog its properties file names, creates its table if missing, and commits one new
 * Parquet file per commit with {@code newFastAppend()}, through a table handle it loads once at
 * start and keeps for the whole run.
 *
 * <pre>
 * java -cp samples/target/floe-samples.jar dev.floe.samples.Ingest \
 *     &lt;catalog.properties&gt; &lt;namespace.table&gt; &lt;commits&gt; &lt;rows-per-commit&gt; &lt;threads&gt;
 * </pre>
 *
 * <p>At the end it prints one line, {@code RESULT key=value ...}; see {@link #USAGE}. A program
 * built on this one (the benchmarks' host) may change how a commit is made and add to what is
 * measured and reported, through the protected methods.
 */
public class Ingest implements AutoCloseable {
    static final String USAGE = String.join(
            "\n",
            "usage: java -cp floe-samples.jar dev.floe.samples.Ingest \\",
            "           <catalog.properties> <namespace.table> <commits> <rows-per-commit> <threads>",
            "",
            "An ordinary Iceberg ingest program: loads the catalog named by 'catalog-impl' in the properties",
            "file (CatalogUtil.loadCatalog), creates the namespace and an unpartitioned table if missing, and",
            "makes <commits> commits, each one table.newFastAppend().appendFile(<one new Parquet file of",
            "<rows-per-commit> rows>).commit(). With <threads> > 1 the commits are shared among the threads.",
            "Row ids are unique across commits and threads (they continue after rows already in the table).",
            "",
            "options (system properties):",
            "  -Dingest.handle=thread   (default) each thread loads its table handle once at start and keeps",
            "                           it for the whole run",
            "  -Dingest.handle=single   one handle, loaded once at start, shared by all threads",
            "  -Dingest.verify=false    skip the full-scan read-back at the end (rows/distinctIds=skipped)",
            "  -Dingest.check-versions=true  read every version the table holds back at the end, by id",
            "                           (versions= versionsExact= versionsRewritten=)",
            "  -Dingest.verify=own      check only this run's own ids at the end, each exactly once: other",
            "                           writers append to the table too (their rows: otherRows=)",
            "  -Dingest.first-id=N      this run's ids start at N, not after the rows already in the table",
            "                           (another writer appending at the same time takes ids of its own)",
            "  -Dingest.stop-file=PATH  stop before the next commit once PATH exists: <commits> is then the",
            "                           most it makes (RESULT commits= says how many it made)",
            "  -Dingest.pace-ms=N       each thread starts a commit at most every N ms, as an ingest that",
            "                           commits on a schedule does (default 0: back to back)",
            "  -Dingest.catalog.KEY=V   override catalog property KEY (e.g. -Dingest.catalog.warehouse=/tmp/w)",
            "  -Dingest.partition=none  (default) how a new table is partitioned: none, hour, day (of ts) or\n"
                    + "                           bucket:N (of id); each commit writes one file per partition",
            "  -Dingest.local-fs=nio    (default) hand the catalog a Hadoop configuration whose file: file",
            "                           system sets permissions without forking chmod per file",
            "  -Dingest.local-fs=hadoop pass no Hadoop configuration: the catalog's own choice",
            "  -Dingest.stacktrace=true print the stack trace of a failure",
            "",
            "A relative local 'warehouse' or 'uri' is resolved against the working directory.",
            "",
            "While it runs it prints 'progress commits=<done>/<commits> ...' ten times. At the end it prints",
            "one line:",
            "  RESULT commits= threads= rowsPerCommit= snapshots= [manifests=] rewrites= sinceRewrite=",
            "         metadataBytes= dataFiles= rows=",
            "         distinctIds= p50Ms= p99Ms= firstP50Ms= firstP99Ms= lastP50Ms= lastP99Ms= elapsedMs=",
            "         scanMs= historyCollapses= handles= [startRows=] [ownRows= otherRows=]",
            "snapshots, metadataBytes (files under the table's metadata/ directory) and dataFiles are read",
            "from a freshly loaded table (snapshots, manifests and dataFiles of one version of it, before the read-back,",
            "even if a rewrite lands meanwhile); latencies are of the commit() call alone; firstP50Ms/firstP99Ms",
            "and lastP50Ms/lastP99Ms are over the first/last 100 commits; elapsedMs is the wall time of the",
            "commit phase; scanMs the time of the read-back, a full scan of every column of the fresh",
            "table, planning included; rewrites counts the snapshots on main that rewrote data files (a",
            "replace adding or removing data files: a compaction by anyone), sinceRewrite the snapshots",
            "above the newest of them (above the oldest when none did); historyCollapses counts commits",
            "after which a handle held fewer snapshots than after its previous commit (someone else",
            "replaced the table's history); handles is how many table handles the threads committed through.",
            "Exit code 0 on success; 1 on a failure or when rows were lost or duplicated; 2 on bad arguments.");

    private static final int WINDOW = 100;

    private final IngestSettings settings;

    protected Ingest(IngestSettings settings) {
        this.settings = settings;
    }

    public static void main(String[] args) {
        Host.exit(run(args, System.out));
    }

    /**
     * Runs the ingest {@code args} describe and prints its RESULT line to {@code out}; returns the exit
     * status (0 done, 1 failed, 2 bad arguments). For launchers that run it in a class loader of
     * their own ({@link IsolatedLauncher}).
     */
    public static int run(String[] args, PrintStream out) {
        return run(USAGE, args, out, Ingest::new);
    }

    /**
     * {@link #run(String[], PrintStream)} of the program {@code program} makes from the settings; it
     * may throw {@link IllegalArgumentException} for options of its own (exit 2).
     */
    protected static int run(
            String usage, String[] args, PrintStream out, Function<IngestSettings, ? extends Ingest> program) {
        if (Host.helpAsked(args, usage, out)) {
            return 0;
        }
        Ingest ingest;
        try {
            ingest = program.apply(IngestSettings.parse(args));
        } catch (IllegalArgumentException e) {
            return Host.badArguments("ingest", e);
        } catch (RuntimeException e) {
            return Host.failed("ingest", e);
        }
        try (ingest) {
            Map<String, String> result = new LinkedHashMap<>();
            String problem = ingest.execute(result);
            return Host.result("ingest", result, problem, out);
        } catch (Throwable t) {
            return Host.failed("ingest", t);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // what a program built on this one may change

    /** Properties the table must have: set when it is created, and on an existing table that lacks them. */
    protected Map<String, String> tableProperties() {
        return Map.of();
    }

    /** Makes one commit of {@code files} (one per partition); its time is the commit's latency. */
    protected void commit(TableHandle handle, List<DataFile> files) throws Exception {
        AppendFiles append = handle.table().newFastAppend();
        files.forEach(append::appendFile);
        append.commit();
    }

    /** Called on the committing thread after each commit, outside its latency. */
    protected void committed(Commit commit) throws Exception {}

    /** True to stop before the next commit (the commits made so far are then reported). */
    protected boolean stopRequested() {
        return false;
    }

    /** Adds to the RESULT {@code values}, after the read-back of the freshly loaded {@code table}. */
    protected void report(Table table, Map<String, String> values) throws Exception {}

    /** Called once when the run is over, done or failed. */
    @Override
    public void close() throws Exception {}

    /** One commit as the program saw it, numbered in the order the commits completed (from 1). */
    public record Commit(
            int number, long latencyNanos, long endMillis, int snapshots, int handleRewrites, Table table) {}

    // ---------------------------------------------------------------------------------------------

    /** Runs the ingest, puts the RESULT values in {@code result}; why the run failed its check, or null. */
    private String execute(Map<String, String> result) throws Exception {
        Map<String, String> props = settings.catalogProperties;
        String impl = props.get("catalog-impl");
        List<Catalog> catalogs = new ArrayList<>();
        try {
            Object hadoopConf = settings.hadoopConf();
            Catalog catalog = CatalogUtil.loadCatalog(impl, "ingest", props, hadoopConf);
            catalogs.add(catalog);
            Table table = createIfMissing(catalog, settings.table);
            long startRows =
                    Math.max(0, TableFacts.summaryLong(table.currentSnapshot(), SnapshotSummary.TOTAL_RECORDS_PROP));
            long firstId = settings.firstId >= 0 ? settings.firstId : startRows;

            // the host's handles: loaded once here, kept for the whole run
            List<TableHandle> handles = new ArrayList<>();
            if (settings.singleHandle) {
                handles.add(new TableHandle(table));
            } else {
                for (int t = 0; t < settings.threads; t++) {
                    Table handle = t == 0 ? table : catalog.loadTable(settings.table);
                    if (alreadyHeld(handles, handle)) {
                        // this catalog hands every caller the same cached object: give the thread a catalog
                        // (and so a handle) of its own
                        Catalog own = CatalogUtil.loadCatalog(impl, "ingest-" + t, props, hadoopConf);
                        catalogs.add(own);
                        handle = own.loadTable(settings.table);
                    }
                    handles.add(new TableHandle(handle));
                }
            }

            long[] latencies = new long[settings.commits];
            AtomicInteger done = new AtomicInteger();
            long start = System.nanoTime();
            commitAll(handles, firstId, latencies, done, start);
            long elapsedNanos = System.nanoTime() - start;

            int commits = done.get();
            result.put("commits", Integer.toString(commits));
            result.put("threads", Integer.toString(settings.threads));
            result.put("rowsPerCommit", Integer.toString(settings.rowsPerCommit));
            // what a reader sees now: a freshly loaded, refreshed handle
            Table fresh = catalog.loadTable(settings.table);
            fresh.refresh();
            long dataFiles;
            if (settings.verify) {
                // snapshots and data files of one version: a rewrite may land while they are read
                TableFacts.Version version = TableFacts.version(fresh);
                result.put("snapshots", Integer.toString(version.snapshots()));
                result.put("manifests", Integer.toString(version.manifests()));
                dataFiles = version.dataFiles();
            } else {
                result.put("snapshots", Integer.toString(TableFacts.count(fresh.snapshots())));
                dataFiles = TableFacts.summaryLong(fresh.currentSnapshot(), SnapshotSummary.TOTAL_DATA_FILES_PROP);
            }
            TableFacts.Rewrites rewrites = TableFacts.rewrites(fresh);
            result.put("rewrites", Integer.toString(rewrites.rewrites()));
            result.put("sinceRewrite", Integer.toString(rewrites.sinceRewrite()));
            result.put("metadataBytes", Long.toString(TableFacts.metadataBytes(fresh.location())));
            long ownRows = (long) commits * settings.rowsPerCommit;
            long expectedRows = startRows + ownRows;
            TableFacts.ReadBack readBack = null;
            long scanMs = -1;
            if (settings.verify) {
                long s0 = System.nanoTime();
                readBack = TableFacts.readBack(fresh, firstId, firstId + ownRows);
                scanMs = (System.nanoTime() - s0) / 1_000_000;
            }
            if (settings.checkVersions) {
                TableFacts.Versions versions = TableFacts.versions(fresh);
                result.put("versions", Integer.toString(versions.versions()));
                result.put("versionsExact", Integer.toString(versions.exact()));
                result.put("versionsRewritten", Integer.toString(versions.rewritten()));
            }
            result.put("dataFiles", Long.toString(dataFiles));
            result.put("rows", readBack == null ? "skipped" : Long.toString(readBack.rows()));
            result.put("distinctIds", readBack == null ? "skipped" : Long.toString(readBack.distinctIds()));
            int window = Math.min(WINDOW, commits);
            result.put("p50Ms", percentileMs(latencies, 0, commits, 50));
            result.put("p99Ms", percentileMs(latencies, 0, commits, 99));
            result.put("firstP50Ms", percentileMs(latencies, 0, window, 50));
            result.put("firstP99Ms", percentileMs(latencies, 0, window, 99));
            result.put("lastP50Ms", percentileMs(latencies, commits - window, commits, 50));
            result.put("lastP99Ms", percentileMs(latencies, commits - window, commits, 99));
            result.put("elapsedMs", Long.toString(elapsedNanos / 1_000_000));
            result.put("scanMs", scanMs < 0 ? "skipped" : Long.toString(scanMs));
            result.put(
                    "historyCollapses",
                    Integer.toString(
                            handles.stream().mapToInt(TableHandle::collapses).sum()));
            result.put("handles", Integer.toString(handles.size()));
            if (startRows > 0) {
                result.put("startRows", Long.toString(startRows));
            }
            if (settings.verifyOwn && readBack != null) {
                result.put("ownRows", Long.toString(readBack.rowsInRange()));
                result.put("otherRows", Long.toString(readBack.rows() - readBack.rowsInRange()));
            }
            report(fresh, result);
            if (readBack == null) {
                return null;
            }
            return settings.verifyOwn
                    ? readBack.ownProblem(firstId, ownRows)
                    : problem(readBack, expectedRows, startRows, commits);
        } finally {
            for (int i = catalogs.size() - 1; i >= 0; i--) {
                closeQuietly(catalogs.get(i));
            }
        }
    }

    /** The commit phase: the threads share the commits, each through its handle. */
    private void commitAll(List<TableHandle> handles, long firstId, long[] latencies, AtomicInteger done, long start)
            throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int progressEvery = Math.max(1, settings.commits / 10);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < settings.threads; t++) {
            TableHandle handle = handles.get(settings.singleHandle ? 0 : t);
            Thread worker = new Thread(
                    () -> {
                        int index = -1;
                        long nextStart = System.nanoTime();
                        try {
                            while (!stop.get()
                                    && !stopRequested()
                                    && !settings.stopFileExists()
                                    && (index = next.getAndIncrement()) < settings.commits) {
                                nextStart = settings.pace(nextStart);
                                long first = firstId + (long) index * settings.rowsPerCommit;
                                List<DataFile> files = Events.writeFiles(handle.table(), first, settings.rowsPerCommit);
                                long t0 = System.nanoTime();
                                commit(handle, files);
                                int seq = done.getAndIncrement();
                                long latency = System.nanoTime() - t0;
                                long endMillis = System.currentTimeMillis();
                                latencies[seq] = latency;
                                int snapshots = handle.observeCommit();
                                committed(new Commit(
                                        seq + 1, latency, endMillis, snapshots, handle.rewrites(), handle.table()));
                                if ((seq + 1) % progressEvery == 0 || seq + 1 == settings.commits) {
                                    Host.progress(seq + 1, settings.commits, start, latency);
                                }
                            }
                        } catch (Throwable e) {
                            stop.set(true);
                            failure.compareAndSet(
                                    null, new IllegalStateException("commit " + index + " failed: " + describe(e), e));
                        }
                    },
                    "ingest-" + t);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw (Exception) failure.get();
        }
    }

    private Table createIfMissing(Catalog catalog, TableIdentifier id) {
        Host.createNamespace(catalog, id.namespace());
        Map<String, String> required = tableProperties();
        if (catalog.tableExists(id)) {
            Table existing = catalog.loadTable(id);
            if (!existing.properties().entrySet().containsAll(required.entrySet())) {
                UpdateProperties update = existing.updateProperties();
                required.forEach(update::set);
                update.commit();
            }
            return existing;
        }
        Map<String, String> properties = new LinkedHashMap<>();
        // several writers may race for each commit: let Iceberg retry a little longer than its default
        properties.put(TableProperties.COMMIT_NUM_RETRIES, "10");
        properties.putAll(required);
        try {
            return catalog.createTable(id, Events.SCHEMA, settings.spec(), properties);
        } catch (AlreadyExistsException raced) {
            return catalog.loadTable(id);
        }
    }

    private static boolean alreadyHeld(List<TableHandle> handles, Table table) {
        return handles.stream().anyMatch(handle -> handle.table() == table);
    }

    /** Why the read-back shows lost or duplicated rows, or null. */
    private String problem(TableFacts.ReadBack readBack, long expectedRows, long startRows, int commits) {
        if (readBack.rows() != expectedRows) {
            return String.format(
                    Locale.ROOT,
                    "read back %d rows, expected %d (%d before the run + %d commits x %d rows)",
                    readBack.rows(),
                    expectedRows,
                    startRows,
                    commits,
                    settings.rowsPerCommit);
        }
        if (readBack.distinctIds() != readBack.rows()) {
            return String.format(
                    Locale.ROOT, "read back %d rows but only %d distinct ids", readBack.rows(), readBack.distinctIds());
        }
        return null;
    }

    private static String percentileMs(long[] latencies, int from, int to, double percentile) {
        double ms = 0;
        if (to > from) {
            Histogram histogram = new Histogram(3);
            for (int i = from; i < to; i++) {
                histogram.recordValue(Math.max(0, latencies[i]));
            }
            ms = histogram.getValueAtPercentile(percentile) / 1e6;
        }
        return String.format(Locale.ROOT, "%.3f", ms);
    }

    private static void closeQuietly(Object closeable) {
        if (closeable instanceof AutoCloseable) {
            try {
                ((AutoCloseable) closeable).close();
            } catch (Exception e) {
                System.err.println("ingest: warning: could not close " + closeable + ": " + describe(e));
            }
        }
    }

    /** One line: the exception and its causes, without stack traces. */
    public static String describe(Throwable t) {
        StringBuilder text = new StringBuilder();
        Set<Throwable> seen = new HashSet<>();
        for (Throwable e = t; e != null && seen.add(e); e = e.getCause()) {
            if (text.length() > 0) {
                text.append(" <- ");
            }
            text.append(e.getClass().getSimpleName());
            if (e.getMessage() != null) {
                text.append(": ").append(e.getMessage());
            }
        }
        return text.toString().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }
}
