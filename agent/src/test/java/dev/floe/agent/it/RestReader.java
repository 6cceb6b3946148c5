package dev.floe.agent.it;

import dev.floe.samples.IngestSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A reader process that knows nothing of floe: Iceberg's own {@link RESTCatalog} client against
 * floe's endpoint, loading the table afresh and reading every id of its current snapshot, over and
 * over, until a stop file appears. After each read: {@code read snapshot=<id> snapshots=<in the
 * table's history> rows=<n> expected=<the snapshot's total-records> high=<ids at or above the split>
 * duplicates=<n>}; at the end
 * {@code RESULT reads= maxRows= decreases= duplicates= inconsistent= notFound= errors=
 * rewritesSeen=} (a read after which the table was rewritten: its history holds more snapshots that
 * rewrote data files than at the read before, or fewer snapshots: a rebuild happened between them).
 *
 * <p>Arguments: the endpoint's URI, the token, the table, the split id, the stop file.
 */
public final class RestReader {
    private RestReader() {}

    /** Iceberg's own REST client, named {@code name}, with {@code token}, reading files with Hadoop's FileIO. */
    static RESTCatalog client(String name, String uri, String token) {
        RESTCatalog catalog = new RESTCatalog();
        catalog.setConf(IngestSettings.nioHadoopConf());
        catalog.initialize(
                name,
                Map.of(
                        CatalogProperties.URI,
                        uri,
                        "token",
                        token,
                        CatalogProperties.FILE_IO_IMPL,
                        "org.apache.iceberg.hadoop.HadoopFileIO"));
        return catalog;
    }

    public static void main(String[] args) throws Exception {
        RESTCatalog catalog = client("reader", args[0], args[1]);
        TableIdentifier identifier = TableIdentifier.parse(args[2]);
        long split = Long.parseLong(args[3]);
        Path stop = Path.of(args[4]);
        long reads = 0;
        long maxRows = 0;
        long last = 0;
        long lastHistory = 0;
        long decreases = 0;
        long duplicates = 0;
        long inconsistent = 0;
        long notFound = 0;
        long errors = 0;
        long rewritesSeen = 0;
        long lastRewrites = -1;
        while (!Files.exists(stop)) {
            try {
                Table table = catalog.loadTable(identifier);
                Snapshot snapshot = table.currentSnapshot();
                if (snapshot == null) {
                    continue; // created, not yet committed to
                }
                long expected = Long.parseLong(snapshot.summary().get(SnapshotSummary.TOTAL_RECORDS_PROP));
                Set<Long> ids = new HashSet<>();
                long rows = 0;
                long high = 0;
                try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                        .useSnapshot(snapshot.snapshotId())
                        .select("id")
                        .build()) {
                    for (Record record : records) {
                        rows++;
                        long id = (Long) record.getField("id");
                        ids.add(id);
                        if (id >= split) {
                            high++;
                        }
                    }
                }
                reads++;
                duplicates += rows - ids.size();
                if (rows != expected) {
                    inconsistent++;
                    System.out.println(
                            "reader saw an inconsistent snapshot: " + rows + " rows, " + expected + " in its summary");
                }
                if (rows < last) {
                    decreases++;
                    System.out.println("reader saw fewer rows: " + rows + " after " + last);
                }
                int history = table.snapshots() instanceof java.util.Collection
                        ? ((java.util.Collection<?>) table.snapshots()).size()
                        : 0;
                long rewrites = 0;
                for (Snapshot s : table.snapshots()) {
                    if ("replace".equals(s.operation())
                            && !"0".equals(s.summary().getOrDefault(SnapshotSummary.ADDED_FILES_PROP, "0"))) {
                        rewrites++;
                    }
                }
                if (lastRewrites >= 0 && (history < lastHistory || rewrites > lastRewrites)) {
                    rewritesSeen++;
                }
                lastHistory = history;
                lastRewrites = rewrites;
                last = rows;
                maxRows = Math.max(maxRows, rows);
                System.out.println("read snapshot=" + snapshot.snapshotId() + " snapshots=" + history + " rows=" + rows
                        + " expected=" + expected + " high=" + high + " duplicates=" + (rows - ids.size()));
                // a reader that queries often, not one that takes a core from the writers
                Thread.sleep(50);
            } catch (NoSuchTableException | NotFoundException e) {
                notFound++;
                System.out.println("reader found no table: " + e);
            } catch (Exception e) {
                errors++;
                System.out.println("reader error: " + e);
                e.printStackTrace(System.out);
            }
        }
        System.out.println("RESULT reads=" + reads + " maxRows=" + maxRows + " decreases=" + decreases + " duplicates="
                + duplicates + " inconsistent=" + inconsistent + " notFound=" + notFound + " errors=" + errors
                + " rewritesSeen=" + rewritesSeen);
        catalog.close();
    }
}
