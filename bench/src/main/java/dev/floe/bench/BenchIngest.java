package dev.floe.bench;

import dev.floe.samples.Ingest;
import dev.floe.samples.IngestSettings;
import dev.floe.samples.TableFacts;
import dev.floe.samples.TableHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;

/**
 * The benchmarks' host: the sample {@link Ingest}, run the same way, plus what the benchmarks
 * measure beyond it: Iceberg's own in-process maintenance as a mode to compare with, a series of
 * every commit, the heap, the metadata the table still references, and a stop shortly after floe
 * rewrote the table.
 */
public final class BenchIngest extends Ingest {
    static final String USAGE = String.join(
            "\n",
            "usage: java -cp floe-bench.jar dev.floe.bench.BenchIngest \\",
            "           <catalog.properties> <namespace.table> <commits> <rows-per-commit> <threads>",
            "",
            "The sample ingest (dev.floe.samples.Ingest --help: its arguments, -Dingest.* options and RESULT",
            "line), with the benchmarks' options (system properties):",
            "  -Dbench.mode=fast        (default) every commit is table.newFastAppend().appendFile(f).commit()",
            "  -Dbench.mode=maintained  Iceberg's own in-process maintenance, the best a Java program does",
            "                           without help: the table is created with",
            "                           write.metadata.delete-after-commit.enabled=true and",
            "                           write.metadata.previous-versions-max=10 (set on an existing table",
            "                           too), every commit is table.newAppend() (manifests merge), and every",
            "                           <expire-every> commits the committing thread runs",
            "                           table.expireSnapshots().expireOlderThan(now).retainLast(10).commit()",
            "                           (file clean-up on: expired manifests and lists are deleted). The",
            "                           expiry's time counts in the latency of the commit that ran it, and",
            "                           is also reported apart (maintenanceMs). expireOlderThan(now) is",
            "                           needed: retainLast alone keeps every snapshot younger than",
            "                           history.expire.max-snapshot-age-ms (5 days by default).",
            "  -Dbench.expire-every=N   maintained mode: expire after every N-th commit (default 100)",
            "  -Dbench.expire-older-than-ms=W  maintained mode: expireOlderThan(now - W).retainLast(1)",
            "                           instead (a window of history kept, as Iceberg's users keep one)",
            "  -Dbench.pace-ms=P        wait P ms after each commit (a steady ingest instead of a flood)",
            "  -Dbench.versions-window-ms=W  at the end, every version planned and a sample of the window's",
            "                           read back by id (VersionsReadBack): RESULT adds keptContentBytes=",
            "                           currentContentBytes= keptVersions= rewrittenVersions= versionsInWindow=",
            "                           versionsReadable= versionsSampled= versionsSampledExact=",
            "  -Dbench.series-csv=PATH  write one CSV row per commit to PATH: commit (1-based, in order of",
            "                           completion), endEpochMs, latencyMs, expireMs (maintained mode),",
            "                           snapshots (the committing handle's, after the commit), and",
            "                           metadataBytes (on disk, every <series-every>-th commit, else empty)",
            "  -Dbench.series-every=K   how often the series samples metadataBytes (default 50)",
            "  -Dbench.stop-after-collapse=N",
            "                           stop N commits after the first commit that landed on someone else's",
            "                           rewrite of the table (its handle held fewer snapshots than before,",
            "                           or below its new head is a replace that rewrote data files: floe's",
            "                           rebuilt snapshot on top of the history it kept); <commits> stays the",
            "                           upper bound",
            "  -Dbench.heap-probe-every=K",
            "                           after every K-th commit (and at the end) run a full collection",
            "                           (System.gc()) and note the heap still in use: liveHeapBytes is the",
            "                           most seen outside floe's rebuilds, the program's live data, and",
            "                           rebuildLiveHeapBytes the most seen while a rebuild ran (floe's",
            "                           MBean says so; default 0: never; the collections happen between",
            "                           commits, outside their latency)",
            "  -Dbench.keep-up=true    after every commit, count the snapshots above the newest one floe",
            "                           rebuilt and sample the CPU time of floe's threads: RESULT adds",
            "                           maxPendingSnapshots= floeCpuMs=",
            "  -Dbench.history-check=true",
            "                           at the end, read the table's history as an incremental reader does",
            "                           (HistoryReadBack): RESULT adds historySnapshots= oldestAgeMs=",
            "                           metadataJsonBytes= incrementalRows= incrementalExpected=",
            "                           incrementalDistinct=",
            "",
            "Its RESULT line adds: liveMetadataBytes= maintenanceMs= peakHeapBytes= peakLiveHeapBytes=",
            "liveHeapBytes= medianLiveHeapBytes= rebuildLiveHeapBytes= missingHeapProbes= droppedGcRequests=",
            "firstCollapseAt= mode= hostDataBytes= processWriteBytes= (and a line 'heap probe commit= liveBytes=",
            "rebuild=' for each probe, 'heap probe commit= missing: ...' for one that could not measure: no",
            "full collection followed its System.gc() requests for 10 s; it counts in missingHeapProbes and in",
            "no other figure; droppedGcRequests counts the System.gc() calls the probes made again because",
            "the JVM ran no full collection for them, as it does while a thread is in a JNI critical region);",
            "hostDataBytes is the bytes of the data files this program appended; processWriteBytes what",
            "the whole process passed to write calls (/proc/self/io wchar: data, metadata, catalog, logs);",
            "liveMetadataBytes counts only the metadata files the fresh table still references (its",
            "metadata file, the previous ones its log names, manifest lists, manifests); maintenanceMs is",
            "the total time of the expiries; peakHeapBytes the most used heap seen by a sampler every",
            "10 ms over the whole run (garbage included); peakLiveHeapBytes the most heap in use right",
            "after a garbage collection (the live data, though young collections leave old garbage in",
            "place; 0 if none ran); liveHeapBytes the most heap in use after a probe's full collection",
            "outside a rebuild, medianLiveHeapBytes the median of those probes (-1 without",
            "-Dbench.heap-probe-every); firstCollapseAt the commit after which the first",
            "rewrite by someone else was seen, as -Dbench.stop-after-collapse tells one (0: none).");

    /** Maintained mode: snapshots expiry keeps, and metadata files delete-after-commit keeps. */
    static final int RETAIN_LAST = 10;

    /** The benchmarks' -Dbench.* options (see {@link #USAGE}). */
    private record Options(
            boolean maintained,
            int expireEvery,
            int seriesEvery,
            int stopAfterCollapse,
            int heapProbeEvery,
            boolean historyCheck,
            boolean keepUp,
            long paceMs,
            long expireOlderThanMs,
            long versionsWindowMs) {
        static Options fromSystemProperties() {
            return new Options(
                    IngestSettings.choice("bench.mode", "fast", "maintained").equals("maintained"),
                    (int) IngestSettings.option("bench.expire-every", 100, 1),
                    (int) IngestSettings.option("bench.series-every", 50, 1),
                    (int) IngestSettings.option("bench.stop-after-collapse", -1, 0),
                    (int) IngestSettings.option("bench.heap-probe-every", 0, 0),
                    IngestSettings.choice("bench.history-check", "false", "true")
                            .equals("true"),
                    IngestSettings.choice("bench.keep-up", "false", "true").equals("true"),
                    IngestSettings.option("bench.pace-ms", 0, 0),
                    IngestSettings.option("bench.expire-older-than-ms", 0, 0),
                    IngestSettings.option("bench.versions-window-ms", 0, 0));
        }
    }

    // what the run has seen so far
    private final AtomicInteger commits = new AtomicInteger();
    private final AtomicInteger firstCollapseAt = new AtomicInteger();
    private final AtomicLong maintenanceNanos = new AtomicLong();
    private final AtomicLong hostDataBytes = new AtomicLong();
    private final ThreadLocal<long[]> expireNanos = ThreadLocal.withInitial(() -> new long[1]);
    /** Each commit's number and end time, for the versions check. */
    private final List<long[]> committedAt = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    private volatile boolean stop;

    private final Options options = Options.fromSystemProperties();
    private final SeriesCsv series;
    private final HeapWatch heap;
    private final KeepUpWatch keepUp = new KeepUpWatch();

    private BenchIngest(IngestSettings settings) {
        super(settings);
        String csv = System.getProperty("bench.series-csv", "").trim();
        heap = new HeapWatch();
        try {
            series = csv.isEmpty()
                    ? null
                    : new SeriesCsv(Paths.get(csv).toAbsolutePath().normalize());
        } catch (IOException e) {
            heap.close();
            throw new UncheckedIOException("cannot write the series " + csv, e);
        }
    }

    public static void main(String[] args) {
        int status = run(USAGE, args, System.out, BenchIngest::new);
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }

    @Override
    protected Map<String, String> tableProperties() {
        return options.maintained()
                ? Map.of(
                        TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED,
                        "true",
                        TableProperties.METADATA_PREVIOUS_VERSIONS_MAX,
                        Integer.toString(RETAIN_LAST))
                : Map.of();
    }

    @Override
    protected void commit(TableHandle handle, List<DataFile> files) throws Exception {
        long expired = 0;
        hostDataBytes.addAndGet(
                files.stream().mapToLong(DataFile::fileSizeInBytes).sum());
        if (!options.maintained()) {
            super.commit(handle, files);
        } else {
            org.apache.iceberg.AppendFiles append = handle.table().newAppend();
            files.forEach(append::appendFile);
            append.commit();
            if (commits.incrementAndGet() % options.expireEvery() == 0) {
                long e0 = System.nanoTime();
                long window = options.expireOlderThanMs();
                handle.table()
                        .expireSnapshots()
                        .expireOlderThan(System.currentTimeMillis() - window)
                        .retainLast(window > 0 ? 1 : RETAIN_LAST)
                        .commit();
                expired = System.nanoTime() - e0;
                maintenanceNanos.addAndGet(expired);
                handle.rewroteHistory();
            }
        }
        expireNanos.get()[0] = expired;
    }

    @Override
    protected void committed(Commit commit) throws IOException, InterruptedException {
        if (options.versionsWindowMs() > 0) {
            committedAt.add(new long[] {commit.number(), commit.endMillis()});
        }
        if (options.paceMs() > 0) {
            // paced: the next commit starts paceMs after this one ended (a steady ingest, not a flood)
            Thread.sleep(options.paceMs());
        }
        if (commit.handleRewrites() > 0 && firstCollapseAt.get() == 0) {
            firstCollapseAt.compareAndSet(0, commit.number());
        }
        if (options.keepUp()) {
            keepUp.observe(commit.table());
        }
        if (options.heapProbeEvery() > 0 && commit.number() % options.heapProbeEvery() == 0) {
            probeHeap(commit.number());
        }
        if (series != null) {
            long metadata = -1;
            if (commit.number() % options.seriesEvery() == 0) {
                metadata = TableFacts.metadataBytes(commit.table().location());
            }
            series.row(
                    commit.number(),
                    commit.endMillis(),
                    commit.latencyNanos(),
                    expireNanos.get()[0],
                    commit.snapshots(),
                    metadata);
        }
        int collapsedAt = firstCollapseAt.get();
        int stopAfter = options.stopAfterCollapse();
        if (stopAfter >= 0 && collapsedAt > 0 && commit.number() >= collapsedAt + stopAfter) {
            stop = true;
        }
    }

    /**
     * A full collection and the heap still in use, counted as during a rebuild when floe had one
     * running before or after it, or finished one in between (its MBean; none without the agent).
     */
    private void probeHeap(long commit) {
        long[] before = FloeMBeans.rebuildState();
        long used = heap.collectAndMeasure();
        long[] after = FloeMBeans.rebuildState();
        boolean rebuild = before[0] > 0 || after[0] > 0 || before[1] != after[1];
        String at = "heap probe commit=" + (commit < 0 ? "end" : Long.toString(commit));
        if (used == HeapWatch.MISSING) {
            // a probe that cannot measure is missing from the figures, not a failed ingest
            System.out.println(at + " missing: no full collection followed System.gc() in " + HeapWatch.BUDGET_MS
                    + " ms rebuild=" + rebuild);
            return;
        }
        heap.record(used, rebuild);
        // each probe in the log, so a peak can be placed in the run
        System.out.println(at + " liveBytes=" + used + " rebuild=" + rebuild);
    }

    @Override
    protected boolean stopRequested() {
        return stop;
    }

    @Override
    protected void report(Table table, Map<String, String> values) throws IOException {
        if (series != null) {
            series.close();
        }
        if (options.heapProbeEvery() > 0) {
            probeHeap(-1);
        }
        values.put("peakHeapBytes", Long.toString(heap.peakUsedBytes()));
        values.put("peakLiveHeapBytes", Long.toString(heap.peakLiveBytes()));
        values.put("liveHeapBytes", Long.toString(options.heapProbeEvery() > 0 ? heap.probedLiveBytes() : -1));
        values.put(
                "medianLiveHeapBytes", Long.toString(options.heapProbeEvery() > 0 ? heap.probedLiveMedianBytes() : -1));
        values.put(
                "rebuildLiveHeapBytes",
                Long.toString(options.heapProbeEvery() > 0 ? heap.probedRebuildLiveBytes() : -1));
        values.put("missingHeapProbes", Integer.toString(heap.missingProbes()));
        values.put("droppedGcRequests", Long.toString(heap.droppedRequests()));
        values.put("liveMetadataBytes", Long.toString(LiveMetadata.bytes(table)));
        values.put("maintenanceMs", Long.toString(maintenanceNanos.get() / 1_000_000));
        values.put("firstCollapseAt", Integer.toString(firstCollapseAt.get()));
        values.put("mode", options.maintained() ? "maintained" : "fast");
        values.put("hostDataBytes", Long.toString(hostDataBytes.get()));
        values.put("processWriteBytes", Long.toString(processWriteBytes()));
        if (options.keepUp()) {
            values.put("maxPendingSnapshots", Integer.toString(keepUp.maxPending()));
            values.put("floeCpuMs", Long.toString(keepUp.floeCpuMillis()));
        }
        if (options.historyCheck()) {
            HistoryReadBack.into(table, values);
        }
        if (options.versionsWindowMs() > 0) {
            VersionsReadBack.into(
                    table,
                    committedAt,
                    Long.parseLong(values.getOrDefault("rowsPerCommit", "1")),
                    options.versionsWindowMs(),
                    values);
        }
    }

    /** Bytes this process has passed to write calls so far (Linux {@code /proc/self/io} wchar), -1 if unknown. */
    static long processWriteBytes() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/io"))) {
                if (line.startsWith("wchar:")) {
                    return Long.parseLong(line.substring("wchar:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: unknown
        }
        return -1;
    }

    @Override
    public void close() throws IOException {
        try {
            if (series != null) {
                series.close();
            }
        } finally {
            heap.close();
        }
    }
}
