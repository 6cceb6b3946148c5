package dev.floe.agent.cli;

import dev.floe.agent.AgentConfig;
import dev.floe.runtime.CrashPoint;
import dev.floe.runtime.HandleRegistry;
import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.WriterGate;
import dev.floe.runtime.rebuild.CompactReport;
import dev.floe.runtime.rebuild.CompactionStep;
import dev.floe.runtime.rebuild.Compactor;
import dev.floe.runtime.rebuild.RebuildPreview;
import dev.floe.runtime.rebuild.RebuildRefusal;
import dev.floe.runtime.rebuild.SourceStats;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.upkeep.Reclaimer;
import dev.floe.runtime.upkeep.RetiredMetadata;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.iceberg.HasTableOperations;
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
        return CatalogSession.run(command.catalog, config, !command.dryRun, session -> {
            Table table = session.load(identifier);
            TableMetadata metadata = ((HasTableOperations) table).operations().current();
            SourceStats source = SourceStats.of(table, metadata.currentSnapshot());
            if (command.dryRun) {
                return dryRun(
                        out,
                        session,
                        identifier,
                        metadata,
                        source,
                        settings,
                        command.full,
                        config.settings().prune().get() != Prune.NONE);
            }
            Prune prune = config.settings().prune().get();
            Progress progress = new Progress(identifier, source, session.inPlace(), Progress.terminal(), System.err);
            Compactor compactor =
                    new Compactor(settings, new WriterGate(), new HandleRegistry(0), progress, Clock.systemUTC());
            CompactReport report;
            try {
                report = compactor.compactTable(session.rebuild(), identifier, progress.counting(prune), command.full);
            } finally {
                progress.close();
            }
            out.println("floe: " + report.summary());
            ReclaimJob job = new Reclaimer(session.rebuild())
                    .pending().stream()
                            .filter(j -> j.id().equals(report.reclaimJob()))
                            .findFirst()
                            .orElse(null);
            if (job != null) {
                out.println("reclaim job " + job.id() + ": " + StatusRun.describeFiles(job) + ", due "
                        + Text.instant(job.due()) + " (" + Text.relative(job.due(), Instant.now())
                        + "); run `reclaim` then, or `reclaim --now` once no reader uses the old table");
            }
            return FloeCli.OK;
        });
    }

    private static int dryRun(
            PrintStream out,
            CatalogSession session,
            TableIdentifier identifier,
            TableMetadata metadata,
            SourceStats source,
            RebuildSettings settings,
            boolean full,
            boolean pruned) {
        String refused = RebuildRefusal.of(metadata);
        out.println("floe: dry run of compact " + identifier + " (nothing is changed)");
        if (refused != null) {
            out.println("  would not rebuild: the table " + refused);
            out.flush();
            return FloeCli.FAILED;
        }
        RebuildPreview plan = RebuildPreview.of(session.load(identifier), metadata, settings, full);
        long written = plan.rewrittenFiles() == 0
                ? 0
                : Math.max(1, (plan.rewrittenBytes() + settings.targetFileBytes() - 1) / settings.targetFileBytes());
        List<String> retired = new ArrayList<>(RetiredMetadata.of(session.rebuild(), identifier, metadata));
        // the rebuilt version goes on from this one's metadata log: what it lists is not retired
        retired.removeAll(RebuildPreview.metadataStillListed(metadata, settings, plan.keptSnapshots()));
        int retiredMetadata = retired.size();
        out.println("  snapshots       " + Text.count(metadata.snapshots().size()) + " -> 1"
                + (plan.keptSnapshots() == 0
                        ? ""
                        : " on top of " + Text.count(plan.keptSnapshots()) + " kept (floe.history.keep)"));
        out.println("  data files      " + Text.count(source.dataFiles()) + " -> about "
                + Text.count(plan.keptFiles() + written) + " (" + Text.count(plan.keptFiles()) + " kept as they are, "
                + Text.count(plan.rewrittenFiles()) + " packed into about " + Text.count(written) + " of at most "
                + Text.bytes(settings.targetFileBytes()) + ", ZSTD level " + settings.zstdLevel()
                + (plan.full() ? "; a full rebuild" : "") + ")");
        out.println("  rows            " + Text.count(plan.rewrittenRows()) + " streamed"
                + (pruned ? " (the prune is not run in a dry run: it may drop some)" : ", all kept"));
        out.println("  bytes read      " + Text.count(plan.rewrittenBytes()) + " (" + Text.bytes(plan.rewrittenBytes())
                + ")");
        out.println("  retires         " + Text.count(retiredMetadata) + " metadata files and what only they"
                + " reference, deleted " + Text.duration(settings.reclaimGrace()) + " after the swap");
        out.flush();
        return FloeCli.OK;
    }

    /** Reaching each step also reaches the crash point of the same name, as the agent's rebuilds do. */
    static void crashPoint(CompactionStep step) {
        CrashPoint.reach("rebuild." + step);
    }
}
