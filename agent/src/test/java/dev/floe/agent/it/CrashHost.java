package dev.floe.agent.it;

import java.nio.file.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * A host for the crash tests that knows nothing of floe: one writer appending through one handle,
 * printing {@code acked <firstId> <count>} after each commit returns, so the test knows exactly
 * which rows were committed before the JVM died. Ids continue after the rows already in the table.
 * It stops after {@code maxCommits}, or {@code afterCollapse} commits after it first sees that
 * someone rebuilt its table (its history shrank, or its commit landed on a rewrite of data files). It prints {@code table-uuid <uuid>} first.
 *
 * <p>Arguments: catalog ({@code mapdb} or {@code jdbc}, see {@link CrashCatalog}), its folder,
 * maxCommits, rowsPerCommit, afterCollapse (-1: never stop early).
 */
public final class CrashHost {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "payload", Types.StringType.get()));

    /** With {@code -Dcrash.upserts=K} (unpartitioned), each commit also upserts the K ids before it. */
    static final int UPSERTS = Integer.getInteger("crash.upserts", 0);

    private CrashHost() {}

    public static void main(String[] args) throws Exception {
        Catalog catalog = CrashCatalog.named(args[0]).open(Path.of(args[1]));
        int maxCommits = Integer.parseInt(args[2]);
        int rows = Integer.parseInt(args[3]);
        int afterCollapse = Integer.parseInt(args[4]);
        if (!((SupportsNamespaces) catalog).namespaceExists(Namespace.of("db"))) {
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
        }
        if (!catalog.tableExists(EVENTS)) {
            catalog.createTable(
                    EVENTS,
                    SCHEMA,
                    Boolean.getBoolean("crash.partitioned")
                            ? org.apache.iceberg.PartitionSpec.builderFor(SCHEMA)
                                    .bucket("id", 2)
                                    .build()
                            : org.apache.iceberg.PartitionSpec.unpartitioned());
        }
        Table table = catalog.loadTable(EVENTS);
        System.out.println("table-uuid " + table.uuid());
        long next = table.currentSnapshot() == null
                ? 0
                : UPSERTS > 0
                        ? maxId(table) + 1
                        : Long.parseLong(table.currentSnapshot().summary().get("total-records"));
        int lastSnapshots = -1;
        int sinceCollapse = -1;
        for (int commit = 0; commit < maxCommits; commit++) {
            if (UPSERTS > 0 && next >= UPSERTS) {
                // an upsert: the new rows, and the last few again, their earlier version deleted by
                // equality (the same rows, so every acknowledged id is still there exactly once)
                org.apache.iceberg.RowDelta delta = table.newRowDelta();
                CrashHostFiles.writeByPartition(table, next, rows).forEach(delta::addRows);
                delta.addRows(CrashHostFiles.write(table, next - UPSERTS, UPSERTS));
                delta.addDeletes(CrashHostFiles.equalityDeletes(table, next - UPSERTS, UPSERTS));
                delta.commit();
            } else {
                org.apache.iceberg.AppendFiles append = table.newFastAppend();
                CrashHostFiles.writeByPartition(table, next, rows).forEach(append::appendFile);
                append.commit();
            }
            System.out.println("acked " + next + " " + rows);
            System.out.flush();
            next += rows;
            int snapshots = ((java.util.Collection<?>) table.snapshots()).size();
            boolean rebuilt =
                    lastSnapshots >= 0 && (snapshots < lastSnapshots || dev.floe.samples.TableFacts.onARewrite(table));
            if (sinceCollapse < 0 && rebuilt) {
                sinceCollapse = 0;
            } else if (sinceCollapse >= 0) {
                sinceCollapse += 1;
            }
            lastSnapshots = snapshots;
            if (afterCollapse >= 0 && sinceCollapse >= afterCollapse) {
                break;
            }
        }
        System.out.println("done next=" + next);
        ((AutoCloseable) catalog).close();
    }

    /** The largest id in the table (an upsert stream's record count also counts the versions it deleted). */
    private static long maxId(Table table) throws java.io.IOException {
        long max = -1;
        try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.data.Record> rows =
                org.apache.iceberg.data.IcebergGenerics.read(table).select("id").build()) {
            for (org.apache.iceberg.data.Record row : rows) {
                max = Math.max(max, (Long) row.getField("id"));
            }
        }
        return max;
    }
}
