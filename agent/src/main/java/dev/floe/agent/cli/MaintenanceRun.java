package dev.floe.agent.cli;

import dev.floe.agent.AgentConfig;
import dev.floe.runtime.seam.RebuildCatalog;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.upkeep.Reclaimer;
import dev.floe.runtime.upkeep.Recovery;
import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.TableIdentifier;

/** {@code reclaim} and {@code recover}. */
final class MaintenanceRun {
    private MaintenanceRun() {}

    static int reclaim(ReclaimCommand command) {
        PrintStream out = System.out;
        Instant now = Instant.now();
        AgentConfig config = command.config.load(new Properties());
        return CatalogSession.run(command.catalog, config, false, session -> {
            Reclaimer reclaimer = new Reclaimer(session.rebuild());
            List<ReclaimJob> before = reclaimer.pending();
            Reclaimer.Result result = command.now ? reclaimer.runAll() : reclaimer.runDue(now);
            report(out, before, reclaimer.pending(), result, command.now, now);
            return FloeCli.OK;
        });
    }

    static int recover(RecoverCommand command) {
        PrintStream out = System.out;
        Instant now = Instant.now();
        AgentConfig config = command.config.load(new Properties());
        return CatalogSession.run(command.catalog, config, false, session -> {
            RebuildCatalog catalog = session.rebuild();
            Map<TableIdentifier, TableIdentifier> unfinished = session.unfinished();
            List<ReclaimJob> before = new Reclaimer(catalog).pending();
            Recovery.Result result = Recovery.run(catalog, now);
            if (unfinished.isEmpty()) {
                out.println("floe: no unfinished rebuild to discard");
            }
            for (Map.Entry<TableIdentifier, TableIdentifier> rebuild : unfinished.entrySet()) {
                TableIdentifier live = rebuild.getValue();
                boolean discarded = result.scratchTablesDiscarded().contains(rebuild.getKey());
                if (!discarded) {
                    out.println("floe: the unfinished rebuild " + rebuild.getKey() + " of " + live
                            + " waits: the table is gone (renamed or dropped), so which of the files it wrote are"
                            + " in use cannot be told");
                } else if (session.inPlace()) {
                    out.println("floe: discarded the files the unfinished rebuild " + rebuild.getKey() + " of " + live
                            + " wrote (those the live table does not reference)");
                } else {
                    out.println("floe: discarded scratch table " + rebuild.getKey()
                            + " and the files it wrote (an unfinished rebuild of " + live + ")");
                }
            }
            report(out, before, new Reclaimer(catalog).pending(), result.reclaimed(), false, now);
            return FloeCli.OK;
        });
    }

    private static void report(
            PrintStream out,
            List<ReclaimJob> before,
            List<ReclaimJob> after,
            Reclaimer.Result result,
            boolean all,
            Instant now) {
        Set<String> left = after.stream().map(ReclaimJob::id).collect(Collectors.toSet());
        for (ReclaimJob job : before) {
            boolean ran = !left.contains(job.id());
            if (ran) {
                out.println("floe: ran reclaim job " + job.id() + " of " + job.table() + " (due "
                        + Text.instant(job.due()) + ")");
            } else if (all || !job.due().isAfter(now)) {
                out.println("floe: reclaim job " + job.id() + " waits: table " + job.table()
                        + " is gone (renamed or dropped)");
            } else {
                out.println("floe: reclaim job " + job.id() + " of " + job.table() + " is not due yet: due "
                        + Text.instant(job.due()) + " (" + Text.relative(job.due(), now)
                        + "); `reclaim --now` runs it now");
            }
        }
        out.println("floe: reclaim: " + result.jobs() + (result.jobs() == 1 ? " job" : " jobs") + " run, "
                + Text.count(result.filesDeleted()) + " files deleted, " + Text.count(result.filesKept())
                + " kept (referenced again), " + after.size() + " pending");
    }
}
