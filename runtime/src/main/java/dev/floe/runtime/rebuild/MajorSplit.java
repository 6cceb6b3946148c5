package dev.floe.runtime.rebuild;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.TableKey;
import dev.floe.runtime.seam.RebuildCatalog;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Step 3a, its second half, with {@link Promotions}: splits the minor work of a rebuild (what
 * arrived since the last one, packed now) from the major (promotions of settled tiers, {@link
 * MajorRebuild}). Files a major rebuild claims are kept as they are while it runs, and replaced by
 * what it wrote once it has, if no delete landed on them meanwhile (else what it wrote is discarded
 * and they are planned as any other). A group of at least {@link RebuildSettings#majorBytes} that
 * the tiers chose, with no delete to apply, in a table of one spec and with no prune, is set apart
 * for a new major rebuild when the table has none, and kept as it is for a later rebuild when it has:
 * major work is never done in a rebuild at the trigger.
 */
final class MajorSplit {
    /** The plan after the split, and what a major rebuild wrote that this rebuild installs (or null). */
    record Split(RebuildPlan plan, MajorRebuild.Written adopted) {}

    private MajorSplit() {}

    static Split split(
            Promotions promotions,
            RebuildCatalog catalog,
            TableIdentifier identifier,
            Table live,
            TableOperations liveOps,
            TableMetadata base,
            RebuildSettings settings,
            boolean full,
            Prune prune) {
        TableKey key = new TableKey(catalog.key(), identifier);
        java.util.Set<String> claimed = full ? java.util.Set.of() : promotions.claimed(key);
        RebuildPlan plan = RebuildPlanner.plan(live, base, settings, full, prune, claimed);
        MajorRebuild.Written written = promotions.written(key);
        MajorRebuild.Written adopted = null;
        if (written != null) {
            String why = full
                    ? "this rebuild rewrites every file"
                    : !prune.keepsEveryRow() ? "a prune reads every row" : written.notAdoptableAt(plan.apart(), base);
            if (why == null) {
                plan = plan.adoptingApart();
                adopted = written;
            } else {
                promotions.discard(key, catalog, written, liveOps, why);
                plan = RebuildPlanner.plan(live, base, settings, full, prune);
            }
        } else if (!plan.apart().isEmpty()) {
            FileScanTask deleted = plan.apart().stream()
                    .filter(task -> !task.deletes().isEmpty())
                    .findFirst()
                    .orElse(null);
            if (deleted == null) {
                plan = plan.keepingApart(); // it still runs
            } else {
                // a rebuild keeps no file an equality delete applies to, and what the major rebuild
                // writes could not be installed: its inputs are planned as any other's
                promotions.abandon(key, "a delete landed on " + deleted.file().location());
                plan = RebuildPlanner.plan(live, base, settings, full, prune);
            }
        }
        if (full || !prune.keepsEveryRow() || base.specs().size() != 1) {
            return new Split(plan, adopted);
        }
        List<RebuildPlan.Group> major =
                plan.groups().stream().filter(group -> isMajor(group, settings)).toList();
        if (major.isEmpty()) {
            return new Split(plan, adopted);
        }
        if (adopted == null && !promotions.busy(key)) {
            promotions.start(key, new MajorRebuild(identifier, base, major, settings, promotions.stop()));
        }
        // started, or kept for a rebuild after the table's major rebuild now: never packed here
        return new Split(plan.settingApart(major), adopted);
    }

    /** A group the tiers chose (not a full rewrite, nor an earlier spec's), of no delete, large enough. */
    private static boolean isMajor(RebuildPlan.Group group, RebuildSettings settings) {
        return settings.majorBytes() > 0
                && "tiered".equals(group.why())
                && !group.routed()
                && group.bytes() >= settings.majorBytes()
                && group.tasks().stream().allMatch(task -> task.deletes().isEmpty());
    }
}
