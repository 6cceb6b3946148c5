package dev.floe.samples;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The end of an upsert run: the checks of {@link Upsert#USAGE} on one version of the table (its
 * metadata as a freshly loaded handle has it, held still while it is read, since floe may rewrite
 * the table meanwhile) and on the handle the host held, its LAST-REBUILD and DELETES lines, and the
 * RESULT values.
 */
final class UpsertReport {
    private final boolean verify;
    private final PrintStream out;

    UpsertReport(boolean verify, PrintStream out) {
        this.verify = verify;
        this.out = out;
    }

    /** Puts the RESULT values in {@code result}; returns what failed, or null. */
    String report(
            Catalog catalog,
            TableIdentifier id,
            TableHandle handle,
            long[] lastVersion,
            CommitLog log,
            long[] latencies,
            int commits,
            long elapsedNanos,
            Map<String, String> result)
            throws IOException {
        List<String> problems = new ArrayList<>();
        Table fresh = catalog.loadTable(id);
        TableMetadata metadata = ((HasTableOperations) fresh).operations().current();
        Table version = new BaseTable(new StaticTableOperations(metadata, fresh.io()), id.toString());

        result.put(
                "keys",
                Long.toString(Arrays.stream(lastVersion).filter(v -> v > 0).count()));
        long scanMs = -1;
        if (verify) {
            long t0 = System.nanoTime();
            UpsertCheck read = UpsertCheck.read(version, lastVersion);
            scanMs = (System.nanoTime() - t0) / 1_000_000;
            UpsertCheck held = UpsertCheck.read(handle.table(), lastVersion);
            result.put("rows", Long.toString(read.rows()));
            result.put("wrong", Long.toString(read.wrong()));
            result.put("heldWrong", Long.toString(held.wrong()));
            addIfAny(problems, read.problem("the freshly loaded table"));
            addIfAny(problems, held.problem("the held handle"));
        } else {
            result.put("rows", "skipped");
            result.put("wrong", "skipped");
            result.put("heldWrong", "skipped");
        }
        result.put("snapshots", Integer.toString(metadata.snapshots().size()));
        TableFacts.Rewrites rewrites = TableFacts.rewrites(version);
        result.put("rewrites", Integer.toString(rewrites.rewrites()));
        result.put("sinceRewrite", Integer.toString(rewrites.sinceRewrite()));
        result.put("dataFiles", Long.toString(TableFacts.dataFiles(version)));
        UpsertDeletes.Applied applied = UpsertDeletes.applied(version);
        result.put("deleteFiles", Integer.toString(applied.deleteFiles()));
        result.put("eqDeleteFiles", Integer.toString(applied.equalityDeleteFiles()));
        List<DeleteFile> held = UpsertDeletes.held(version);
        result.put("tableDeleteFiles", Integer.toString(held.size()));

        UpsertDeletes.SincePin since = UpsertDeletes.sincePin(version, held, log);
        if (since.rebuilt() == null) {
            out.println("LAST-REBUILD none");
        } else {
            out.println("LAST-REBUILD snapshot=" + since.rebuilt().snapshotId() + " sequence="
                    + since.rebuilt().sequenceNumber() + " pinned="
                    + since.rebuilt().summary().get(UpsertDeletes.REBUILD_OF) + " pinnedCommit="
                    + orUnknown(since.pinnedCommit()) + " summary="
                    + since.rebuilt().summary());
        }
        out.println("DELETES count=" + held.size() + UpsertDeletes.tokens(held, log));
        result.put(
                "lastRebuild",
                since.rebuilt() == null ? "none" : Long.toString(since.rebuilt().snapshotId()));
        result.put("pinnedCommit", orUnknown(since.pinnedCommit()));
        result.put("commitsSinceRebuild", Integer.toString(since.commitsSince()));
        result.put("floeDeleteFiles", Integer.toString(since.floeFiles()));
        result.put("deletesSincePin", since.status());
        if (!since.violations().isEmpty()) {
            problems.add("after the last rebuild: " + since.violations().size() + " violation(s), the first: "
                    + since.violations().get(0));
        }

        long[] sorted = Arrays.copyOf(latencies, commits);
        Arrays.sort(sorted);
        result.put("commitP50Ms", millis(percentile(sorted, 50)));
        result.put("commitP99Ms", millis(percentile(sorted, 99)));
        result.put("commitMaxMs", millis(commits == 0 ? 0 : sorted[commits - 1]));
        result.put("elapsedMs", Long.toString(elapsedNanos / 1_000_000));
        result.put("scanMs", scanMs < 0 ? "skipped" : Long.toString(scanMs));
        result.put("metadataBytes", Long.toString(TableFacts.metadataBytes(fresh.location())));
        result.put("historyCollapses", Integer.toString(handle.collapses()));
        if (log.unidentified() > 0) {
            result.put("unidentifiedCommits", Integer.toString(log.unidentified()));
        }
        return problems.isEmpty() ? null : String.join("; ", problems);
    }

    private static void addIfAny(List<String> problems, String problem) {
        if (problem != null) {
            problems.add(problem);
        }
    }

    private static String orUnknown(Long commit) {
        return commit == null ? "none" : Long.toString(commit);
    }

    /** The p-th percentile (nearest rank) of {@code sorted}; 0 if empty. */
    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }
}
