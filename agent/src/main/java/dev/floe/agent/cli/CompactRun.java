package dev.floe.agent.cli;

import dev.floe.agent.AgentConfig;
import dev.floe.catalog.CrashPoint;
import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.CompactReport;
import dev.floe.runtime.CompactionStep;
import dev.floe.runtime.Compactor;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.ReclaimJob;
import dev.floe.runtime.Reclaimer;
import dev.floe.runtime.WriterGate;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;

/** {@code compact}: one rebuild-and-swap through the runtime's {@link Compactor}, or a dry run. */
final class CompactRun {
  private CompactRun() {}

  static int run(CompactCommand command) {
    Properties overrides = new Properties();
    if (command.pruneClass != null) {
      overrides.setProperty("floe.rebuild.prune-class", command.pruneClass);
    }
    AgentConfig config = command.config.load(overrides);
    RebuildSettings settings = config.settings().rebuild();
    TableIdentifier identifier = CatalogSession.identifier(command.table);
    PrintStream out = System.out;
    try (MapDbCatalog catalog = CatalogSession.open(command.catalog.file)) {
      if (!catalog.tableExists(identifier)) {
        throw new FloeCli.CliException(FloeCli.NOT_FOUND, "no table " + identifier + " in " + catalog.catalogFile());
      }
      Table table = catalog.loadTableUncached(identifier);
      TableMetadata metadata = ((HasTableOperations) table).operations().current();
      Source source = Source.of(metadata);
      if (command.dryRun) {
        return dryRun(out, catalog, identifier, metadata, source, settings, config.settings().prune().get() != Prune.NONE);
      }
      Prune prune = config.settings().prune().get();
      Progress progress = new Progress(identifier, source, Progress.terminal(), System.err);
      Compactor compactor =
          new Compactor(settings, new WriterGate(), new HandleRegistry(0), progress, Clock.systemUTC());
      CompactReport report;
      try {
        report = compactor.compactTable(catalog, identifier, progress.counting(prune));
      } finally {
        progress.close();
      }
      out.println("floe: " + report.summary());
      ReclaimJob job =
          new Reclaimer(catalog).pending().stream().filter(j -> j.id().equals(report.reclaimJob())).findFirst().orElse(null);
      if (job != null) {
        out.println("reclaim job " + job.id() + ": " + StatusRun.describeFiles(job) + ", due "
            + Text.instant(job.due()) + " (" + Text.relative(job.due(), Instant.now())
            + "); run `reclaim` then, or `reclaim --now` once no reader uses the old table");
      }
      out.flush();
      return FloeCli.OK;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int dryRun(
      PrintStream out,
      MapDbCatalog catalog,
      TableIdentifier identifier,
      TableMetadata metadata,
      Source source,
      RebuildSettings settings,
      boolean pruned) {
    String refused = refusal(metadata);
    out.println("floe: dry run of compact " + identifier + " (nothing is changed)");
    if (refused != null) {
      out.println("  would not rebuild: " + refused);
      out.flush();
      return FloeCli.FAILED;
    }
    long files = Math.max(1, (source.bytes() + settings.targetFileBytes() - 1) / settings.targetFileBytes());
    java.util.Set<String> retired = new java.util.HashSet<>(catalog.commitLog(identifier).values());
    metadata.previousFiles().forEach(entry -> retired.add(entry.file()));
    retired.add(metadata.metadataFileLocation());
    int retiredMetadata = retired.size();
    out.println("  snapshots       " + Text.count(metadata.snapshots().size()) + " -> 1");
    out.println("  data files      " + Text.count(source.files()) + " -> " + Text.count(files) + " (at most "
        + Text.bytes(settings.targetFileBytes()) + " each, ZSTD level " + settings.zstdLevel() + ")");
    out.println("  rows            " + Text.count(source.rows()) + " streamed"
        + (pruned ? " (the prune is not run in a dry run: it may drop some)" : ", all kept"));
    out.println("  bytes read      " + Text.count(source.bytes()) + " (" + Text.bytes(source.bytes()) + ")");
    out.println("  retires         " + Text.count(retiredMetadata) + " metadata files and what only they"
        + " reference, deleted " + Text.duration(settings.reclaimGrace()) + " after the swap");
    out.flush();
    return FloeCli.OK;
  }

  /** Why the compactor would refuse the table, or null. */
  private static String refusal(TableMetadata metadata) {
    if (metadata.spec().isPartitioned()) {
      return "the table is partitioned; floe rebuilds unpartitioned tables only";
    }
    for (Map.Entry<String, SnapshotRef> ref : metadata.refs().entrySet()) {
      if (!SnapshotRef.MAIN_BRANCH.equals(ref.getKey())) {
        return "the table has branch or tag '" + ref.getKey() + "'; a rebuild keeps only main";
      }
    }
    if (metadata.currentSnapshot() == null) {
      return "the table has no snapshot: nothing to rebuild";
    }
    return null;
  }

  /** Data files, bytes and rows of the current snapshot, from its summary. */
  record Source(long files, long bytes, long rows) {
    static Source of(TableMetadata metadata) {
      Snapshot current = metadata.currentSnapshot();
      if (current == null) {
        return new Source(0, 0, 0);
      }
      Map<String, String> summary = current.summary();
      return new Source(
          Long.parseLong(summary.getOrDefault("total-data-files", "0")),
          Long.parseLong(summary.getOrDefault("total-files-size", "0")),
          Long.parseLong(summary.getOrDefault("total-records", "0")));
    }
  }

  /** Reaching each step also reaches the crash point of the same name, as the agent's rebuilds do. */
  static void crashPoint(CompactionStep step) {
    CrashPoint.reach("rebuild." + step);
  }
}
