package dev.floe.agent.cli;

import dev.floe.agent.AgentConfig;
import dev.floe.runtime.seam.ReclaimJob;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/** {@code status}: reads the catalog and each table's current metadata; changes nothing. */
final class StatusRun {
    static final String REBUILD_KEY = "floe.rebuild-of-snapshot";

    private StatusRun() {}

    record TableStatus(
            TableIdentifier table,
            int snapshots,
            long dataFiles,
            long smallDataFiles,
            long dataBytes,
            long metadataBytes,
            long rows,
            Instant lastRebuild,
            List<ReclaimJob> reclaimJobs) {}

    static int run(StatusCommand command) {
        PrintStream out = System.out;
        Instant now = Instant.now();
        AgentConfig config = command.config.load(new Properties());
        long smallBelow = config.settings().rebuild().targetFileBytes() / 4;
        return CatalogSession.runOrOverRest(command.catalog, command.rest, config, session -> {
            Map<TableIdentifier, TableIdentifier> unfinished = session.unfinished();
            List<TableIdentifier> tables = session.tables(command.glob);
            tables.removeAll(unfinished.keySet());
            if (tables.isEmpty()) {
                FloeCli.CliException nothing = session.nothingListed(command.glob);
                if (nothing != null) {
                    throw nothing;
                }
            }
            List<ReclaimJob> jobs = session.pendingReclaims();
            List<TableStatus> statuses = new ArrayList<>();
            for (TableIdentifier table : tables) {
                List<ReclaimJob> own =
                        jobs.stream().filter(j -> j.table().equals(table)).collect(Collectors.toList());
                statuses.add(status(session, table, smallBelow, own));
            }
            if (command.json) {
                out.println(json(session, statuses, unfinished, smallBelow, now));
            } else {
                text(out, session, statuses, unfinished, smallBelow, now);
            }
            return FloeCli.OK;
        });
    }

    static TableStatus status(
            CatalogSession session, TableIdentifier identifier, long smallBelow, List<ReclaimJob> jobs) {
        Table table = session.load(identifier);
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        Snapshot current = metadata.currentSnapshot();
        long metadataBytes =
                table.io().newInputFile(metadata.metadataFileLocation()).getLength();
        long dataFiles = 0;
        long small = 0;
        long dataBytes = 0;
        long rows = 0;
        Instant lastRebuild = null;
        if (current != null) {
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    dataFiles += 1;
                    dataBytes += task.file().fileSizeInBytes();
                    if (task.file().fileSizeInBytes() < smallBelow) {
                        small += 1;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            rows = Long.parseLong(current.summary().getOrDefault("total-records", "0"));
            // a rebuild leaves one snapshot that names its base; later appends follow it
            for (Snapshot snapshot : metadata.snapshots()) {
                if (snapshot.summary().containsKey(REBUILD_KEY)) {
                    Instant at = Instant.ofEpochMilli(snapshot.timestampMillis());
                    if (lastRebuild == null || at.isAfter(lastRebuild)) {
                        lastRebuild = at;
                    }
                }
            }
        }
        return new TableStatus(
                identifier,
                metadata.snapshots().size(),
                dataFiles,
                small,
                dataBytes,
                metadataBytes,
                rows,
                lastRebuild,
                jobs);
    }

    private static void text(
            PrintStream out,
            CatalogSession session,
            List<TableStatus> statuses,
            Map<TableIdentifier, TableIdentifier> unfinished,
            long smallBelow,
            Instant now) {
        out.println(
                "catalog " + session.label() + ": " + statuses.size() + (statuses.size() == 1 ? " table" : " tables"));
        session.notes().forEach(out::println);
        for (TableStatus s : statuses) {
            out.println();
            out.println(s.table());
            out.println("  snapshots       " + Text.count(s.snapshots()));
            out.println("  data files      " + Text.count(s.dataFiles()) + " (" + Text.count(s.smallDataFiles())
                    + " small, under " + Text.bytes(smallBelow) + "), " + Text.bytes(s.dataBytes()));
            out.println("  metadata bytes  " + Text.count(s.metadataBytes()) + " (current metadata file)");
            out.println("  rows            " + Text.count(s.rows()));
            out.println("  last rebuild    " + (s.lastRebuild() == null ? "never" : Text.instant(s.lastRebuild())));
            if (s.reclaimJobs().isEmpty()) {
                out.println("  reclaim jobs    none pending");
            } else {
                out.println("  reclaim jobs    " + s.reclaimJobs().size() + " pending");
                for (ReclaimJob job : s.reclaimJobs()) {
                    out.println("    " + job.id() + "  due " + Text.instant(job.due()) + " ("
                            + Text.relative(job.due(), now) + "), " + describeFiles(job));
                }
            }
        }
        if (!unfinished.isEmpty()) {
            out.println();
            out.println(
                    "unfinished rebuilds (a process died mid-rebuild; `recover` or the agent's next start discards them):");
            unfinished.forEach((scratch, live) -> out.println("  " + scratch + " (rebuilding " + live + ")"));
        }
    }

    static String describeFiles(ReclaimJob job) {
        return job.expanded()
                ? Text.count(job.paths().size()) + " files to delete"
                : Text.count(job.paths().size())
                        + " retired metadata files (files they reference are listed when it runs)";
    }

    private static String json(
            CatalogSession session,
            List<TableStatus> statuses,
            Map<TableIdentifier, TableIdentifier> unfinished,
            long smallBelow,
            Instant now) {
        StringBuilder out = new StringBuilder();
        out.append("{\"catalog\":").append(Text.json(session.label()));
        out.append(session.jsonFields());
        out.append(",\"time\":").append(Text.json(now.toString()));
        out.append(",\"smallFileBytes\":").append(smallBelow);
        out.append(",\"tables\":[");
        for (int i = 0; i < statuses.size(); i++) {
            TableStatus s = statuses.get(i);
            out.append(i == 0 ? "" : ",").append('{');
            out.append("\"table\":").append(Text.json(s.table().toString()));
            out.append(",\"snapshots\":").append(s.snapshots());
            out.append(",\"dataFiles\":").append(s.dataFiles());
            out.append(",\"smallDataFiles\":").append(s.smallDataFiles());
            out.append(",\"dataBytes\":").append(s.dataBytes());
            out.append(",\"metadataBytes\":").append(s.metadataBytes());
            out.append(",\"rows\":").append(s.rows());
            out.append(",\"lastRebuild\":")
                    .append(
                            s.lastRebuild() == null
                                    ? "null"
                                    : Text.json(s.lastRebuild().toString()));
            out.append(",\"reclaimJobs\":[");
            for (int j = 0; j < s.reclaimJobs().size(); j++) {
                ReclaimJob job = s.reclaimJobs().get(j);
                out.append(j == 0 ? "" : ",").append('{');
                out.append("\"id\":").append(Text.json(job.id()));
                out.append(",\"due\":").append(Text.json(job.due().toString()));
                out.append(",\"isDue\":").append(!job.due().isAfter(now));
                out.append(",\"expanded\":").append(job.expanded());
                out.append(",\"paths\":").append(job.paths().size());
                out.append('}');
            }
            out.append("]}");
        }
        out.append("],\"unfinishedRebuilds\":[");
        int i = 0;
        for (Map.Entry<TableIdentifier, TableIdentifier> entry : unfinished.entrySet()) {
            out.append(i++ == 0 ? "" : ",");
            out.append("{\"scratch\":")
                    .append(Text.json(entry.getKey().toString()))
                    .append(",\"table\":")
                    .append(Text.json(entry.getValue().toString()))
                    .append('}');
        }
        out.append("]}");
        return out.toString();
    }
}
