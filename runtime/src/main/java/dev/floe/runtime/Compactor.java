package dev.floe.runtime;

import dev.floe.catalog.CatalogFileException;
import dev.floe.catalog.DurableChange;
import dev.floe.catalog.MapDbCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuild-and-swap: rewrites a live table into a few large ZSTD Parquet files with exactly one
 * snapshot and swaps it into the live name, following DESIGN.md's compaction flow:
 *
 * <ol>
 *   <li>pin the base snapshot of the live table (no gate held);
 *   <li>create the {@link ScratchTable};
 *   <li>stream the base's rows (deletes applied) through the prune into a {@link
 *       RollingParquetWriter};
 *   <li>take the {@link WriterGate}, refresh, and {@link CatchUp} on what landed meanwhile: appends
 *       are carried over, anything else starts the rebuild again (a bounded number of times);
 *   <li>commit written and carried files to the scratch table in one fast append;
 *   <li>swap it into the live name, compare-and-swap on the location read in step 4, recording the
 *       reclaim job and clearing the {@link RebuildJournal} in the same transaction;
 *   <li>reload the host's tracked handles, release the gate;
 *   <li>expand the reclaim job into the list of retired files, deleted after the grace window.
 * </ol>
 *
 * Any failure before the swap drops the scratch table and deletes every file this rebuild wrote;
 * the live table is untouched and the error is thrown as a {@link RebuildException}.
 */
public final class Compactor {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);
  /** Catch-up rounds before the gate, at most. */
  private static final int EARLY_ROUNDS = 5;
  /** A round that found at most this many commits is the last before the gate. */
  private static final int FEW_COMMITS = 3;

  private final RebuildSettings settings;
  private final WriterGate gate;
  private final HandleRegistry handles;
  private final CompactionProbe probe;
  private final Clock clock;

  public Compactor(
      RebuildSettings settings,
      WriterGate gate,
      HandleRegistry handles,
      CompactionProbe probe,
      Clock clock) {
    this.settings = settings;
    this.gate = gate;
    this.handles = handles;
    this.probe = probe;
    this.clock = clock;
  }

  /** A compactor with its own gate and no tracked handles, for use without the agent. */
  public Compactor(RebuildSettings settings) {
    this(settings, new WriterGate(), new HandleRegistry(0), CompactionProbe.NONE, Clock.systemUTC());
  }

  /**
   * Rebuilds {@code identifier} and swaps the result into its name.
   *
   * @throws RebuildException if the table cannot be rebuilt (partitioned, no snapshot) or the
   *     rebuild failed; the live table is then exactly as it was
   * @throws TableBusyException if non-append commits raced every attempt
   */
  public CompactReport compactTable(MapDbCatalog catalog, TableIdentifier identifier, Prune prune) {
    for (int attempt = 1; attempt <= settings.maxAttempts(); attempt++) {
      CompactReport report = attempt(catalog, identifier, prune, attempt);
      if (report != null) {
        LOG.debug("floe: {}", report.summary());
        return report;
      }
    }
    throw new TableBusyException(
        "Table "
            + identifier
            + " is busy: commits other than appends landed during each of "
            + settings.maxAttempts()
            + " rebuild attempts, so it was left as it is (a rebuild carries appends that land while it"
            + " runs, and starts again on anything else).");
  }

  /** One attempt; null when a racing commit means starting again. */
  private CompactReport attempt(
      MapDbCatalog catalog, TableIdentifier identifier, Prune prune, int attempt) {
    Phases phases = new Phases();
    Table live = catalog.loadTableUncached(identifier);
    BaseMetastoreTableOperations liveOps =
        (BaseMetastoreTableOperations) ((HasTableOperations) live).operations();
    TableMetadata base = liveOps.refresh();
    refuseUnsupported(identifier, base);
    long pinned = base.currentSnapshot().snapshotId();
    SourceStats before = SourceStats.of(live, base.currentSnapshot());
    probe.reached(CompactionStep.PINNED, identifier);

    RebuildJournal journal =
        new RebuildJournal(catalog, identifier, ScratchTable.nameFor(identifier));
    journal.begin();
    boolean gateHeld = false;
    boolean swapped = false;
    try {
      Table scratch =
          ScratchTable.create(
              catalog, base, liveOps, RebuiltTableProperties.of(settings, base.properties()), journal);
      probe.reached(CompactionStep.SCRATCH_CREATED, identifier);
      phases.end("scratch");

      RollingParquetWriter.Result written;
      RollingParquetWriter writer =
          new RollingParquetWriter(
              scratch,
              settings,
              location -> {
                journal.fileStarted(location);
                probe.reached(CompactionStep.FILE_STARTED, identifier);
              });
      StreamRaceWatch watch = new StreamRaceWatch(catalog, identifier, liveOps, base);
      try (CloseableIterable<Record> rows =
          watch.watch(IcebergGenerics.read(live).useSnapshot(pinned).project(base.schema()).build())) {
        written = writer.write(rows, prune);
      } catch (StreamRaceWatch.Raced raced) {
        return startsAgain(identifier, attempt, raced.getMessage() + " (seen while the rows streamed)");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      probe.reached(CompactionStep.ROWS_WRITTEN, identifier);
      phases.end("stream");

      // 4a, without the gate: catch up on what landed during the stream and write the manifest of
      // everything known so far, so the gate below waits only for the last few commits
      // (in rounds: a long stream leaves many commits to read, and more land while they are read;
      // each round reads only the commits since the last, until a round finds only a few)
      TableMetadata midway = base;
      CatchUp.Result early = null;
      for (int round = 1; round <= EARLY_ROUNDS; round++) {
        TableMetadata now = liveOps.refresh();
        CatchUp.Result step = CatchUp.since(midway, now, live.io());
        if (step.mustRestart()) {
          return startsAgain(identifier, attempt, step.restartReason());
        }
        early = early == null ? step : early.then(step);
        midway = now;
        if (step.commits() <= FEW_COMMITS) {
          break;
        }
      }
      if (settings.metadataVersions() > 0) {
        // the commits of a long stream: their forgotten metadata goes now, so the swap's
        // transaction does not prune hundreds of commit-log entries under the gate
        MetadataHistoryTrim.trim(catalog, identifier, midway);
      }
      List<DataFile> known = new ArrayList<>(written.files());
      known.addAll(early.appended());
      ManifestFile prewritten = PrewrittenManifest.write(scratch, known, journal);
      probe.reached(CompactionStep.MANIFEST_WRITTEN, identifier);
      phases.end("catch-up");

      // 4b, under the gate: the rest
      gate.enter(identifier);
      gateHeld = true;
      phases.end("gate-wait");
      TableMetadata current = liveOps.refresh();
      CatchUp.Result late = CatchUp.since(midway, current, live.io());
      if (late.mustRestart()) {
        return startsAgain(identifier, attempt, late.restartReason());
      }
      probe.reached(CompactionStep.CAUGHT_UP, identifier);
      CatchUp.Result caughtUp = early.then(late);

      List<DataFile> files = new ArrayList<>(known);
      files.addAll(late.appended());
      RebuiltSnapshotCommit.commit(
          scratch, known, prewritten, late.appended(), current, pinned, settings.writerMarkers(), journal);
      probe.reached(CompactionStep.SCRATCH_COMMITTED, identifier);
      phases.end("commit");

      List<String> retiredMetadata = retiredMetadata(catalog, identifier, current);
      ReclaimJob job =
          new ReclaimJob(
              journal.scratch().toString(),
              identifier,
              clock.instant().plus(settings.reclaimGrace()),
              catalog.metadataLocation(journal.scratch()),
              false,
              retiredMetadata);
      try {
        catalog.swapTable(
            identifier,
            journal.scratch(),
            current.metadataFileLocation(),
            List.of(DurableChange.put(ReclaimJob.SECTION, job.id(), job.encode()), journal.clearOnSwap()));
      } catch (CatalogFileException e) {
        // the catalog file failed mid-swap: whether the swap landed is unknown, so nothing is
        // deleted now; the next start's recovery finds the journal exactly when it did not land
        swapped = true;
        throw new RebuildException(
            "Rebuild of " + identifier + " could not tell whether its swap landed (" + e.getMessage()
                + "); recovery settles it when the catalog is next opened",
            e);
      }
      swapped = true;
      probe.reached(CompactionStep.SWAPPED, identifier);
      // reload the host's handles before the gate opens: a host operation that waited there then
      // finds its handle already on the rebuilt table, instead of refreshing it at the same time as
      // this reload (two refreshes of one handle leave it holding another copy of the metadata its
      // operation was built on, which fails the commit once and costs Iceberg's retry back-off)
      int reloaded = handles.reload(identifier);
      probe.reached(CompactionStep.HANDLES_RELOADED, identifier);
      gate.exit(identifier);
      gateHeld = false;
      phases.end("swap");

      CompactReport swappedIn =
          new CompactReport(
              identifier,
              base.snapshots().size(),
              before.dataFiles(),
              files.size(),
              written.rowsOut(),
              written.rowsIn() - written.rowsOut(),
              caughtUp.appended().size(),
              caughtUp.appendedRows(),
              before.bytes(),
              written.bytes() + caughtUp.appended().stream().mapToLong(DataFile::fileSizeInBytes).sum(),
              phases.all(),
              attempt,
              job.id(),
              -1,
              reloaded);
      // the rebuild is done and live: say so now, before the retired files are listed (a host may
      // exit at any moment from here on)
      LOG.info("floe: {}", swappedIn.summary());

      int retiredFiles = expandQuietly(catalog, job);
      if (settings.metadataVersions() > 0) {
        // after the expansion, which reads them to find every file they reference
        MetadataHistoryTrim.deleteForgotten(catalog, retiredMetadata, current);
      }
      probe.reached(CompactionStep.RECLAIM_RECORDED, identifier);
      phases.end("reclaim");
      return swappedIn.listed(retiredFiles, phases.all());
    } catch (RuntimeException e) {
      if (swapped) {
        throw e;
      }
      throw new RebuildException(
          "Rebuild of " + identifier + " failed; the live table is untouched: " + e, e);
    } finally {
      if (gateHeld) {
        gate.exit(identifier);
      }
      if (!swapped) {
        discardQuietly(catalog, journal);
      }
    }
  }

  /** Says why this attempt ends without a swap; null, which makes {@link #compactTable} try again. */
  private CompactReport startsAgain(TableIdentifier identifier, int attempt, String reason) {
    LOG.info(
        "floe: rebuild of {} starts again (attempt {} of {}): {}",
        identifier, attempt, settings.maxAttempts(), reason);
    return null;
  }

  private static void refuseUnsupported(TableIdentifier identifier, TableMetadata base) {
    if (base.spec().isPartitioned()) {
      throw new RebuildException(
          "Table "
              + identifier
              + " is partitioned ("
              + base.spec()
              + "); floe rebuilds unpartitioned tables only and leaves this one as it is");
    }
    for (Map.Entry<String, SnapshotRef> ref : base.refs().entrySet()) {
      if (!SnapshotRef.MAIN_BRANCH.equals(ref.getKey())) {
        throw new RebuildException(
            "Table "
                + identifier
                + " has branch or tag '"
                + ref.getKey()
                + "'; a rebuild keeps only main, so floe leaves this table as it is");
      }
    }
    if (base.currentSnapshot() == null) {
      throw new RebuildException("Table " + identifier + " has no snapshot: nothing to rebuild");
    }
    Set<Long> onMain = new java.util.HashSet<>();
    for (org.apache.iceberg.Snapshot s = base.currentSnapshot(); s != null;
        s = s.parentId() == null ? null : base.snapshot(s.parentId())) {
      onMain.add(s.snapshotId());
    }
    for (org.apache.iceberg.Snapshot s : base.snapshots()) {
      if (!onMain.contains(s.snapshotId()) && s.summary().containsKey("wap.id")) {
        throw new RebuildException(
            "Table " + identifier + " has staged (write-audit-publish) snapshot " + s.snapshotId()
                + "; a rebuild keeps only the main branch, so floe leaves this table as it is");
      }
    }
  }

  /** Every metadata file of the live table up to the swap: its commit log and its metadata log. */
  private static List<String> retiredMetadata(
      MapDbCatalog catalog, TableIdentifier identifier, TableMetadata current) {
    Set<String> retired = new LinkedHashSet<>(catalog.commitLog(identifier).values());
    current.previousFiles().forEach(entry -> retired.add(entry.file()));
    retired.add(current.metadataFileLocation());
    return new ArrayList<>(retired);
  }

  private static void discardQuietly(MapDbCatalog catalog, RebuildJournal journal) {
    try {
      ScratchTable.discard(catalog, journal);
    } catch (RuntimeException e) {
      LOG.warn(
          "floe: could not clean up scratch table {}; recovery will at the next start: {}",
          journal.scratch(), e.toString());
    }
  }

  private int expandQuietly(MapDbCatalog catalog, ReclaimJob job) {
    try {
      ReclaimJob expanded = new Reclaimer(catalog).expand(job);
      return expanded == null ? -1 : expanded.paths().size();
    } catch (RuntimeException e) {
      LOG.warn(
          "floe: rebuild of {} is live; listing its retired files failed and will be retried by"
              + " the next reclaim: {}",
          job.table(), e.toString());
      return -1;
    }
  }

  /** Data files, bytes and rows of the base snapshot, from its summary. */
  private record SourceStats(long dataFiles, long bytes, long rows) {
    static SourceStats of(Table table, org.apache.iceberg.Snapshot snapshot) {
      Map<String, String> summary = snapshot.summary();
      if (summary.containsKey("total-data-files") && summary.containsKey("total-files-size")) {
        return new SourceStats(
            Long.parseLong(summary.get("total-data-files")),
            Long.parseLong(summary.get("total-files-size")),
            Long.parseLong(summary.getOrDefault("total-records", "0")));
      }
      long files = 0;
      long bytes = 0;
      long rows = 0;
      try (var tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        for (var task : tasks) {
          files += 1;
          bytes += task.file().fileSizeInBytes();
          rows += task.file().recordCount();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new SourceStats(files, bytes, rows);
    }
  }

  /** Wall time per phase, each measured from the end of the one before. */
  private static final class Phases {
    private final Map<String, Duration> phases = new LinkedHashMap<>();
    private long mark = System.nanoTime();

    void end(String phase) {
      long now = System.nanoTime();
      phases.put(phase, Duration.ofNanos(now - mark));
      mark = now;
    }

    Map<String, Duration> all() {
      return phases;
    }
  }
}
