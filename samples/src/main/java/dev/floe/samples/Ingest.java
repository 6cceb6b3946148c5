package dev.floe.samples;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

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
 * <p>At the end it prints one line, {@code RESULT key=value ...}; see {@link #USAGE}.
 */
public final class Ingest {
  static final String USAGE =
      String.join(
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
          "  -Dingest.catalog.KEY=V   override catalog property KEY (e.g. -Dingest.catalog.warehouse=/tmp/w)",
          "  -Dingest.local-fs=nio    (default) hand the catalog a Hadoop configuration whose file: file",
          "                           system sets permissions without forking chmod per file",
          "  -Dingest.local-fs=hadoop pass no Hadoop configuration: the catalog's own choice",
          "  -Dingest.stacktrace=true print the stack trace of a failure",
          "  -Dingest.mode=fast       (default) every commit is table.newFastAppend().appendFile(f).commit()",
          "  -Dingest.mode=maintained Iceberg's own in-process maintenance, the best a Java program does",
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
          "  -Dingest.expire-every=N  maintained mode: expire after every N-th commit (default 100)",
          "  -Dingest.series-csv=PATH write one CSV row per commit to PATH: commit (1-based, in order of",
          "                           completion), endEpochMs, latencyMs, expireMs (maintained mode),",
          "                           snapshots (the committing handle's, after the commit), and",
          "                           metadataBytes (on disk, every <series-every>-th commit, else empty)",
          "  -Dingest.series-every=K  how often the series samples metadataBytes (default 50)",
          "  -Dingest.stop-after-collapse=N",
          "                           stop N commits after the first observed history collapse (a commit",
          "                           after which its handle held fewer snapshots than before: someone",
          "                           else rewrote the table); <commits> stays the upper bound",
          "  -Dingest.pause-ms=MS     sleep MS milliseconds between a thread's commits (default 0:",
          "                           commit back to back)",
          "  -Dingest.heap-probe-every=K",
          "                           after every K-th commit (and at the end) run a full collection",
          "                           (System.gc()) and note the heap still in use: liveHeapBytes is the",
          "                           most seen, the program's live data (default 0: never; the",
          "                           collections happen between commits, outside their latency)",
          "",
          "A relative local 'warehouse' or 'uri' is resolved against the working directory.",
          "",
          "At the end it prints one line:",
          "  RESULT commits= threads= rowsPerCommit= snapshots= metadataBytes= liveMetadataBytes=",
          "         dataFiles= rows= distinctIds= p50Ms= p99Ms= firstP50Ms= firstP99Ms= lastP50Ms=",
          "         lastP99Ms= elapsedMs= maintenanceMs= scanMs= peakHeapBytes= peakLiveHeapBytes=",
          "         liveHeapBytes=",
          "         historyCollapses= firstCollapseAt= handles= mode=",
          "snapshots, metadataBytes (files under the table's metadata/ directory) and dataFiles are read",
          "from a freshly loaded table; liveMetadataBytes counts only the metadata files that table still",
          "references (its metadata file, the previous ones its log names, manifest lists, manifests);",
          "latencies are of the commit() call alone (plus the expiry, in maintained mode);",
          "firstP50Ms/firstP99Ms and lastP50Ms/lastP99Ms are over the first/last 100 commits; elapsedMs is",
          "the wall time of the commit phase; maintenanceMs the total time of the expiries; scanMs the",
          "time of the read-back, a full scan of every column of the fresh table, planning included;",
          "peakHeapBytes the most used heap seen by a sampler every 10 ms over the whole run (garbage",
          "included); peakLiveHeapBytes the most heap in use right after a garbage collection (the live",
          "data, though young collections leave old garbage in place; 0 if none ran); liveHeapBytes",
          "the most heap in use after a probe's full collection (-1 without -Dingest.heap-probe-every);",
          "firstCollapseAt the commit after which the first collapse was seen (0:",
          "none);",
          "historyCollapses counts commits after which a handle held fewer snapshots than after its",
          "previous commit (the table was rewritten by someone else); handles is how many table handles",
          "the threads committed through.",
          "Exit code 0 on success; 1 on a failure or when rows were lost or duplicated; 2 on bad arguments.");

  static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "ts", Types.TimestampType.withZone()),
          optional(3, "device", Types.StringType.get()),
          optional(4, "value", Types.DoubleType.get()),
          optional(5, "payload", Types.StringType.get()));

  private static final long TS_BASE_MILLIS = Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();
  private static final int WINDOW = 100;
  /** Maintained mode: snapshots expiry keeps, and metadata files delete-after-commit keeps. */
  static final int RETAIN_LAST = 10;

  private final Settings settings;

  private Ingest(Settings settings) {
    this.settings = settings;
  }

  public static void main(String[] args) {
    int status = run(args, System.out);
    System.out.flush();
    System.err.flush();
    System.exit(status);
  }

  /**
   * Runs the ingest {@code args} describe and prints its RESULT line to {@code out}; returns the exit
   * status (0 done, 1 failed, 2 bad arguments). For launchers that run it in a class loader of
   * their own ({@link IsolatedLauncher}).
   */
  public static int run(String[] args, PrintStream out) {
    if (args.length >= 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      out.println(USAGE);
      return 0;
    }
    Settings settings;
    try {
      settings = Settings.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("ingest: error: " + e.getMessage() + " (--help for usage)");
      return 2;
    }
    try {
      Result result = new Ingest(settings).run();
      out.println(result.line());
      out.flush();
      String problem = result.problem();
      if (problem != null) {
        System.err.println("ingest: error: " + problem);
        return 1;
      }
      return 0;
    } catch (Throwable t) {
      if (Boolean.getBoolean("ingest.stacktrace")) {
        t.printStackTrace();
      }
      System.err.println("ingest: error: " + describe(t));
      return 1;
    }
  }

  // ---------------------------------------------------------------------------------------------

  private Result run() throws Exception {
    Map<String, String> props = settings.catalogProperties;
    String impl = props.get("catalog-impl");
    List<Catalog> catalogs = new ArrayList<>();
    HeapWatch heap = new HeapWatch();
    Series series = settings.seriesCsv == null ? null : new Series(settings.seriesCsv);
    try {
      Object hadoopConf = settings.hadoopConf();
      Catalog catalog = CatalogUtil.loadCatalog(impl, "ingest", props, hadoopConf);
      catalogs.add(catalog);
      Table table = createIfMissing(catalog, settings.table, settings.maintained);
      long startRows = totalRecords(table.currentSnapshot());

      // the host's handles: loaded once here, kept for the whole run
      List<Handle> handles = new ArrayList<>();
      if (settings.singleHandle) {
        handles.add(new Handle(table));
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
          handles.add(new Handle(handle));
        }
      }

      long[] latencies = new long[settings.commits];
      AtomicInteger next = new AtomicInteger();
      AtomicInteger done = new AtomicInteger();
      AtomicInteger firstCollapseAt = new AtomicInteger();
      AtomicLong maintenanceNanos = new AtomicLong();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      int progressEvery = Math.max(1, settings.commits / 10);

      long start = System.nanoTime();
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < settings.threads; t++) {
        Handle handle = handles.get(settings.singleHandle ? 0 : t);
        Thread worker =
            new Thread(
                () -> {
                  int index = -1;
                  try {
                    while (!stop.get() && (index = next.getAndIncrement()) < settings.commits) {
                      if (settings.pauseMillis > 0 && index >= settings.threads) {
                        Thread.sleep(settings.pauseMillis);
                      }
                      long firstId = startRows + (long) index * settings.rowsPerCommit;
                      DataFile file = writeFile(handle.table, firstId, settings.rowsPerCommit);
                      long t0 = System.nanoTime();
                      if (settings.maintained) {
                        handle.table.newAppend().appendFile(file).commit();
                      } else {
                        handle.table.newFastAppend().appendFile(file).commit();
                      }
                      int seq = done.getAndIncrement();
                      long expireNanos = 0;
                      if (settings.maintained && (seq + 1) % settings.expireEvery == 0) {
                        long e0 = System.nanoTime();
                        handle.table
                            .expireSnapshots()
                            .expireOlderThan(System.currentTimeMillis())
                            .retainLast(RETAIN_LAST)
                            .commit();
                        expireNanos = System.nanoTime() - e0;
                        maintenanceNanos.addAndGet(expireNanos);
                        handle.expired();
                      }
                      long latency = System.nanoTime() - t0;
                      long endMillis = System.currentTimeMillis();
                      latencies[seq] = latency;
                      int snapshots = handle.observeCommit();
                      if (handle.collapses > 0 && firstCollapseAt.get() == 0) {
                        firstCollapseAt.compareAndSet(0, seq + 1);
                      }
                      if (settings.heapProbeEvery > 0 && (seq + 1) % settings.heapProbeEvery == 0) {
                        heap.probeLive();
                      }
                      if (series != null) {
                        long metadata = -1;
                        if ((seq + 1) % settings.seriesEvery == 0) {
                          metadata = metadataBytes(handle.table.location());
                        }
                        series.row(seq + 1, endMillis, latency, expireNanos, snapshots, metadata);
                      }
                      int collapsedAt = firstCollapseAt.get();
                      if (settings.stopAfterCollapse >= 0
                          && collapsedAt > 0
                          && seq + 1 >= collapsedAt + settings.stopAfterCollapse) {
                        stop.set(true);
                      }
                      if ((seq + 1) % progressEvery == 0 || seq + 1 == settings.commits) {
                        System.out.printf(
                            Locale.ROOT,
                            "progress commits=%d/%d elapsedMs=%d lastCommitMs=%.3f%n",
                            seq + 1,
                            settings.commits,
                            (System.nanoTime() - start) / 1_000_000,
                            latency / 1e6);
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
      long elapsedNanos = System.nanoTime() - start;
      if (failure.get() != null) {
        throw (Exception) failure.get();
      }

      if (series != null) {
        series.close();
      }
      Result result = new Result();
      result.mode = settings.maintained ? "maintained" : "fast";
      result.commits = done.get();
      result.threads = settings.threads;
      result.rowsPerCommit = settings.rowsPerCommit;
      result.startRows = startRows;
      result.elapsedMs = elapsedNanos / 1_000_000;
      result.p50 = percentileMs(latencies, 0, result.commits, 50);
      result.p99 = percentileMs(latencies, 0, result.commits, 99);
      int window = Math.min(WINDOW, result.commits);
      result.firstP50 = percentileMs(latencies, 0, window, 50);
      result.firstP99 = percentileMs(latencies, 0, window, 99);
      result.lastP50 = percentileMs(latencies, result.commits - window, result.commits, 50);
      result.lastP99 = percentileMs(latencies, result.commits - window, result.commits, 99);
      result.maintenanceMs = maintenanceNanos.get() / 1_000_000;
      result.historyCollapses = handles.stream().mapToInt(h -> h.collapses).sum();
      result.firstCollapseAt = firstCollapseAt.get();
      result.handles = handles.size();

      // what a reader sees now: a freshly loaded, refreshed handle
      Table fresh = catalog.loadTable(settings.table);
      fresh.refresh();
      result.snapshots = count(fresh.snapshots());
      result.metadataBytes = metadataBytes(fresh.location());
      if (settings.verify) {
        long s0 = System.nanoTime();
        readBack(fresh, result);
        result.scanMs = (System.nanoTime() - s0) / 1_000_000;
        result.dataFiles = countDataFiles(fresh);
      } else {
        result.dataFiles = summaryLong(fresh.currentSnapshot(), SnapshotSummary.TOTAL_DATA_FILES_PROP);
      }
      if (settings.heapProbeEvery > 0) {
        heap.probeLive();
      }
      result.peakHeapBytes = heap.peakUsedBytes();
      result.peakLiveHeapBytes = heap.peakLiveBytes();
      result.liveHeapBytes = settings.heapProbeEvery > 0 ? heap.probedLiveBytes() : -1;
      result.liveMetadataBytes = liveMetadataBytes(fresh);
      return result;
    } finally {
      if (series != null) {
        series.close();
      }
      heap.close();
      for (int i = catalogs.size() - 1; i >= 0; i--) {
        closeQuietly(catalogs.get(i));
      }
    }
  }

  /** One CSV row per commit; see USAGE. */
  private static final class Series {
    private final java.io.BufferedWriter out;
    private boolean closed;

    Series(Path file) throws IOException {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      out = Files.newBufferedWriter(file, java.nio.charset.StandardCharsets.UTF_8);
      out.write("commit,endEpochMs,latencyMs,expireMs,snapshots,metadataBytes\n");
    }

    synchronized void row(
        int commit, long endMillis, long latencyNanos, long expireNanos, int snapshots, long metadata)
        throws IOException {
      out.write(
          String.format(
              Locale.ROOT,
              "%d,%d,%.3f,%.3f,%d,%s%n",
              commit,
              endMillis,
              latencyNanos / 1e6,
              expireNanos / 1e6,
              snapshots,
              metadata < 0 ? "" : Long.toString(metadata)));
    }

    synchronized void close() throws IOException {
      if (!closed) {
        closed = true;
        out.close();
      }
    }
  }

  private static Table createIfMissing(Catalog catalog, TableIdentifier id, boolean maintained) {
    Namespace namespace = id.namespace();
    if (catalog instanceof SupportsNamespaces && !namespace.isEmpty()) {
      SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
      if (!namespaces.namespaceExists(namespace)) {
        try {
          namespaces.createNamespace(namespace);
        } catch (AlreadyExistsException raced) {
          // created by someone else meanwhile
        }
      }
    }
    Map<String, String> maintenance =
        maintained
            ? Map.of(
                TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
                TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, Integer.toString(RETAIN_LAST))
            : Map.of();
    if (catalog.tableExists(id)) {
      Table existing = catalog.loadTable(id);
      if (!existing.properties().entrySet().containsAll(maintenance.entrySet())) {
        org.apache.iceberg.UpdateProperties update = existing.updateProperties();
        maintenance.forEach(update::set);
        update.commit();
      }
      return existing;
    }
    Map<String, String> properties = new LinkedHashMap<>();
    // several writers may race for each commit: let Iceberg retry a little longer than its default
    properties.put(TableProperties.COMMIT_NUM_RETRIES, "10");
    properties.putAll(maintenance);
    try {
      return catalog.createTable(id, SCHEMA, PartitionSpec.unpartitioned(), properties);
    } catch (AlreadyExistsException raced) {
      return catalog.loadTable(id);
    }
  }

  private static boolean alreadyHeld(List<Handle> handles, Table table) {
    for (Handle handle : handles) {
      if (handle.table == table) {
        return true;
      }
    }
    return false;
  }

  /** Writes rows {@code firstId .. firstId+count-1} to one new Parquet data file; no commit. */
  static DataFile writeFile(Table table, long firstId, int count) throws IOException {
    Schema schema = table.schema();
    GenericAppenderFactory appenders = new GenericAppenderFactory(schema, table.spec());
    appenders.setAll(table.properties());
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, System.nanoTime()).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer =
        appenders.newDataWriter(files.newOutputFile(), FileFormat.PARQUET, (StructLike) null);
    try (writer) {
      GenericRecord template = GenericRecord.create(schema);
      for (long id = firstId; id < firstId + count; id++) {
        writer.write(row(template, id));
      }
    }
    return writer.toDataFile();
  }

  static Record row(GenericRecord template, long id) {
    Record row = template.copy();
    row.setField("id", id);
    row.setField(
        "ts", OffsetDateTime.ofInstant(Instant.ofEpochMilli(TS_BASE_MILLIS + id * 10), ZoneOffset.UTC));
    row.setField("device", "device-" + Math.floorMod(id, 64));
    row.setField("value", id * 0.25);
    row.setField(
        "payload",
        String.format(Locale.ROOT, "%016x%016x%016x", mix(id), mix(id + 1), mix(id + 2)));
    return row;
  }

  private static long mix(long x) {
    long z = x + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Reads every row back (all columns): counts rows and distinct ids. */
  private static void readBack(Table table, Result result) throws IOException {
    long expected = result.startRows + (long) result.commits * result.rowsPerCommit;
    int dense = (int) Math.min(expected, Integer.MAX_VALUE);
    BitSet seen = new BitSet(dense);
    Set<Long> others = new HashSet<>();
    long rows = 0;
    // a full scan: every column of every row, though only the ids are checked
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        rows++;
        long id = (Long) record.getField("id");
        if (id >= 0 && id < dense) {
          seen.set((int) id);
        } else {
          others.add(id);
        }
      }
    }
    result.rows = rows;
    result.distinctIds = seen.cardinality() + (long) others.size();
    result.expectedRows = expected;
  }

  private static long countDataFiles(Table table) throws IOException {
    if (table.currentSnapshot() == null) {
      return 0;
    }
    long files = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask ignored : tasks) {
        files++;
      }
    }
    return files;
  }

  /**
   * Bytes of the metadata files {@code table} still references: its current metadata file, the
   * previous ones its metadata log names (if still on disk), every snapshot's manifest list and
   * every manifest those lists name (each counted once).
   */
  static long liveMetadataBytes(Table table) {
    if (!(table instanceof org.apache.iceberg.HasTableOperations)) {
      return -1;
    }
    org.apache.iceberg.TableMetadata metadata =
        ((org.apache.iceberg.HasTableOperations) table).operations().current();
    org.apache.iceberg.io.FileIO io = table.io();
    Set<String> seen = new HashSet<>();
    long bytes = 0;
    List<String> metadataFiles = new ArrayList<>();
    metadataFiles.add(metadata.metadataFileLocation());
    metadata.previousFiles().forEach(entry -> metadataFiles.add(entry.file()));
    for (String location : metadataFiles) {
      if (location != null && seen.add(location)) {
        bytes += lengthIfExists(io, location);
      }
    }
    for (Snapshot snapshot : metadata.snapshots()) {
      String list = snapshot.manifestListLocation();
      if (list == null || !seen.add(list)) {
        continue;
      }
      bytes += lengthIfExists(io, list);
      // the manifest list is read with plain Avro rather than Snapshot.allManifests, which would
      // keep every list's entries cached in the table's snapshots: O(N^2) objects at N snapshots
      try (InputStream in = io.newInputFile(list).newStream();
          org.apache.avro.file.DataFileStream<org.apache.avro.generic.GenericRecord> entries =
              new org.apache.avro.file.DataFileStream<>(
                  in, new org.apache.avro.generic.GenericDatumReader<>())) {
        org.apache.avro.generic.GenericRecord entry = null;
        while (entries.hasNext()) {
          entry = entries.next(entry);
          String manifest = String.valueOf(entry.get("manifest_path"));
          if (seen.add(manifest)) {
            bytes += ((Number) entry.get("manifest_length")).longValue();
          }
        }
      } catch (IOException | RuntimeException e) {
        // a list deleted meanwhile: its manifests are not live through it
      }
    }
    return bytes;
  }

  private static long lengthIfExists(org.apache.iceberg.io.FileIO io, String location) {
    try {
      return io.newInputFile(location).getLength();
    } catch (RuntimeException e) {
      return 0; // not found (deleted meanwhile): not live
    }
  }

  private static long totalRecords(Snapshot snapshot) {
    return Math.max(0, summaryLong(snapshot, SnapshotSummary.TOTAL_RECORDS_PROP));
  }

  private static long summaryLong(Snapshot snapshot, String key) {
    if (snapshot == null) {
      return 0;
    }
    String value = snapshot.summary() == null ? null : snapshot.summary().get(key);
    try {
      return value == null ? -1 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Bytes of every file under {@code <location>/metadata} on local disk; -1 if not local. */
  static long metadataBytes(String location) throws IOException {
    Path root;
    if (location.startsWith("file:")) {
      root = Paths.get(java.net.URI.create(location.replaceFirst("^file:/*", "file:///")));
    } else if (location.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      return -1;
    } else {
      root = Paths.get(location);
    }
    Path metadata = root.resolve("metadata");
    if (!Files.isDirectory(metadata)) {
      return 0;
    }
    // someone (floe's reclaim, Iceberg's clean-up) may delete files while we walk: a file that
    // vanished between listing and reading its size counts as gone, never as an error
    long[] total = {0};
    Files.walkFileTree(
        metadata,
        new java.nio.file.SimpleFileVisitor<Path>() {
          @Override
          public java.nio.file.FileVisitResult visitFile(
              Path file, java.nio.file.attribute.BasicFileAttributes attrs) {
            if (attrs.isRegularFile()) {
              total[0] += attrs.size();
            }
            return java.nio.file.FileVisitResult.CONTINUE;
          }

          @Override
          public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e)
              throws IOException {
            if (e instanceof NoSuchFileException) {
              return java.nio.file.FileVisitResult.CONTINUE;
            }
            throw e;
          }
        });
    return total[0];
  }

  private static double percentileMs(long[] latencies, int from, int to, double percentile) {
    if (to <= from) {
      return 0;
    }
    Histogram histogram = new Histogram(3);
    for (int i = from; i < to; i++) {
      histogram.recordValue(Math.max(0, latencies[i]));
    }
    return histogram.getValueAtPercentile(percentile) / 1e6;
  }

  private static int count(Iterable<?> items) {
    if (items == null) {
      return 0;
    }
    if (items instanceof Collection) {
      return ((Collection<?>) items).size();
    }
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
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
  static String describe(Throwable t) {
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

  // ---------------------------------------------------------------------------------------------

  /** A table handle the host holds for the whole run, and what its history looked like. */
  private static final class Handle {
    final Table table;
    int lastSnapshotCount = -1;
    int collapses;

    Handle(Table table) {
      this.table = table;
    }

    /**
     * After a commit through this handle: did its history shrink since the previous commit?
     * Returns the snapshots the handle holds now.
     */
    synchronized int observeCommit() {
      int snapshots = count(table.snapshots());
      if (lastSnapshotCount >= 0 && snapshots < lastSnapshotCount) {
        collapses++;
      }
      lastSnapshotCount = snapshots;
      return snapshots;
    }

    /** This handle expired snapshots itself: the shrink it sees next is its own doing. */
    synchronized void expired() {
      lastSnapshotCount = -1;
    }
  }

  private static final class Result {
    String mode;
    int commits;
    int threads;
    int rowsPerCommit;
    long startRows;
    long snapshots;
    long metadataBytes;
    long liveMetadataBytes;
    long dataFiles;
    long rows = -1;
    long distinctIds = -1;
    long expectedRows = -1;
    double p50;
    double p99;
    double firstP50;
    double firstP99;
    double lastP50;
    double lastP99;
    long elapsedMs;
    long maintenanceMs;
    long scanMs = -1;
    long peakHeapBytes;
    long peakLiveHeapBytes;
    long liveHeapBytes = -1;
    int historyCollapses;
    int firstCollapseAt;
    int handles;

    String line() {
      Map<String, String> values = new LinkedHashMap<>();
      values.put("commits", Integer.toString(commits));
      values.put("threads", Integer.toString(threads));
      values.put("rowsPerCommit", Integer.toString(rowsPerCommit));
      values.put("snapshots", Long.toString(snapshots));
      values.put("metadataBytes", Long.toString(metadataBytes));
      values.put("liveMetadataBytes", Long.toString(liveMetadataBytes));
      values.put("dataFiles", Long.toString(dataFiles));
      values.put("rows", rows < 0 ? "skipped" : Long.toString(rows));
      values.put("distinctIds", distinctIds < 0 ? "skipped" : Long.toString(distinctIds));
      values.put("p50Ms", ms(p50));
      values.put("p99Ms", ms(p99));
      values.put("firstP50Ms", ms(firstP50));
      values.put("firstP99Ms", ms(firstP99));
      values.put("lastP50Ms", ms(lastP50));
      values.put("lastP99Ms", ms(lastP99));
      values.put("elapsedMs", Long.toString(elapsedMs));
      values.put("maintenanceMs", Long.toString(maintenanceMs));
      values.put("scanMs", scanMs < 0 ? "skipped" : Long.toString(scanMs));
      values.put("peakHeapBytes", Long.toString(peakHeapBytes));
      values.put("peakLiveHeapBytes", Long.toString(peakLiveHeapBytes));
      values.put("liveHeapBytes", Long.toString(liveHeapBytes));
      values.put("historyCollapses", Integer.toString(historyCollapses));
      values.put("firstCollapseAt", Integer.toString(firstCollapseAt));
      values.put("handles", Integer.toString(handles));
      values.put("mode", mode);
      if (startRows > 0) {
        values.put("startRows", Long.toString(startRows));
      }
      StringBuilder line = new StringBuilder("RESULT");
      values.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
      return line.toString();
    }

    /** Why the run failed its own check, or null. */
    String problem() {
      if (rows < 0) {
        return null;
      }
      if (rows != expectedRows) {
        return String.format(
            Locale.ROOT,
            "read back %d rows, expected %d (%d before the run + %d commits x %d rows)",
            rows, expectedRows, startRows, commits, rowsPerCommit);
      }
      if (distinctIds != rows) {
        return String.format(
            Locale.ROOT, "read back %d rows but only %d distinct ids", rows, distinctIds);
      }
      return null;
    }

    private static String ms(double value) {
      return String.format(Locale.ROOT, "%.3f", value);
    }
  }

  /** The command line and system properties, checked. */
  static final class Settings {
    Map<String, String> catalogProperties;
    TableIdentifier table;
    int commits;
    int rowsPerCommit;
    int threads;
    boolean singleHandle;
    boolean verify;
    boolean nioLocalFs;
    boolean maintained;
    int expireEvery = 100;
    Path seriesCsv;
    int seriesEvery = 50;
    int stopAfterCollapse = -1;
    long pauseMillis;
    int heapProbeEvery;

    /** The Hadoop configuration handed to the catalog, or null to let it choose. */
    Object hadoopConf() {
      return nioLocalFs ? nioHadoopConf() : null;
    }

    /** A Hadoop configuration whose file: file system is {@link NioLocalFileSystem}. */
    static org.apache.hadoop.conf.Configuration nioHadoopConf() {
      org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
      conf.set("fs.file.impl", NioLocalFileSystem.class.getName());
      conf.set("fs.file.impl.disable.cache", "true");
      return conf;
    }

    static Settings parse(String[] args) {
      if (args.length != 5) {
        throw new IllegalArgumentException(
            "expected 5 arguments <catalog.properties> <namespace.table> <commits>"
                + " <rows-per-commit> <threads>, got "
                + args.length);
      }
      Settings s = new Settings();
      s.catalogProperties = catalogProperties(Paths.get(args[0]));
      if (!args[1].contains(".") || args[1].startsWith(".") || args[1].endsWith(".")) {
        throw new IllegalArgumentException(
            "table '" + args[1] + "' must be named <namespace>.<table>, e.g. demo.events");
      }
      s.table = TableIdentifier.parse(args[1]);
      s.commits = positive("commits", args[2]);
      s.rowsPerCommit = positive("rows-per-commit", args[3]);
      s.threads = Math.min(positive("threads", args[4]), s.commits);
      String handle = System.getProperty("ingest.handle", "thread").trim();
      switch (handle) {
        case "thread":
          s.singleHandle = false;
          break;
        case "single":
          s.singleHandle = true;
          break;
        default:
          throw new IllegalArgumentException(
              "-Dingest.handle=" + handle + " is not 'thread' (the default) or 'single'");
      }
      String verify = System.getProperty("ingest.verify", "true").trim();
      if (!verify.equalsIgnoreCase("true") && !verify.equalsIgnoreCase("false")) {
        throw new IllegalArgumentException("-Dingest.verify=" + verify + " is not true or false");
      }
      s.verify = Boolean.parseBoolean(verify);
      String localFs = System.getProperty("ingest.local-fs", "nio").trim();
      switch (localFs) {
        case "nio":
          s.nioLocalFs = true;
          break;
        case "hadoop":
          s.nioLocalFs = false;
          break;
        default:
          throw new IllegalArgumentException(
              "-Dingest.local-fs=" + localFs + " is not 'nio' (the default) or 'hadoop'");
      }
      String mode = System.getProperty("ingest.mode", "fast").trim();
      switch (mode) {
        case "fast":
          s.maintained = false;
          break;
        case "maintained":
          s.maintained = true;
          break;
        default:
          throw new IllegalArgumentException(
              "-Dingest.mode=" + mode + " is not 'fast' (the default) or 'maintained'");
      }
      s.expireEvery = (int) option("ingest.expire-every", 100, 1);
      s.seriesEvery = (int) option("ingest.series-every", 50, 1);
      s.stopAfterCollapse = (int) option("ingest.stop-after-collapse", -1, 0);
      s.pauseMillis = option("ingest.pause-ms", 0, 0);
      s.heapProbeEvery = (int) option("ingest.heap-probe-every", 0, 0);
      String series = System.getProperty("ingest.series-csv", "").trim();
      s.seriesCsv = series.isEmpty() ? null : Paths.get(series).toAbsolutePath().normalize();
      return s;
    }

    /** A whole-number system property, at least {@code min}; {@code fallback} when unset. */
    private static long option(String key, long fallback, long min) {
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
      throw new IllegalArgumentException(
          "-D" + key + "=" + value + " is not a whole number >= " + min);
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

    static Map<String, String> catalogProperties(Path file) {
      Properties loaded = new Properties();
      try (InputStream in = Files.newInputStream(file)) {
        loaded.load(in);
      } catch (NoSuchFileException e) {
        throw new IllegalArgumentException("catalog properties file " + file + " does not exist");
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read " + file + ": " + describe(e));
      }
      Map<String, String> props = new LinkedHashMap<>();
      for (String key : loaded.stringPropertyNames()) {
        props.put(key, loaded.getProperty(key).trim());
      }
      String prefix = "ingest.catalog.";
      for (String key : System.getProperties().stringPropertyNames()) {
        if (key.startsWith(prefix) && key.length() > prefix.length()) {
          props.put(key.substring(prefix.length()), System.getProperty(key).trim());
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
}
