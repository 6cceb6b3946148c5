package dev.floe.agent.it;

import dev.floe.catalog.CatalogInUseException;
import dev.floe.catalog.MapDbCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IncrementalAppendScan;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * A downstream consumer that knows nothing of floe, reading a table incrementally as Flink's and
 * Spark's streaming sources do: each poll plans Iceberg's own {@link IncrementalAppendScan} from its
 * last position (exclusive) to the head of {@code main}, reads the appended files' ids, and moves its
 * position to that head. Polls go through Iceberg's {@link RESTCatalog} against floe's endpoint until
 * a stop file appears; then, once the host has exited, one last poll reads the catalog file itself, so
 * that the consumer ends at the table's final head.
 *
 * <p>With {@code restart}, every poll is a new consumer: a new client, its position read from the
 * position file the previous one wrote, as a streaming job restarting from its checkpoint.
 *
 * <p>Arguments: the endpoint's URI, the token, the table, the pace in ms, {@code follow} or {@code
 * restart}, the position file, the ids file (written at the end, one id per line), the stop file, the
 * warehouse. Prints {@code poll from=<position> to=<head> rows=<n> replaced=<rebuilt snapshots
 * crossed>} per poll with rows, and at the end {@code RESULT polls= rows= errors= replacedCrossed=}.
 */
public final class IncrementalConsumer {
    private IncrementalConsumer() {}

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String token = args[1];
        TableIdentifier identifier = TableIdentifier.parse(args[2]);
        long pace = Long.parseLong(args[3]);
        boolean restart = args[4].equals("restart");
        Path positionFile = Path.of(args[5]);
        Path idsFile = Path.of(args[6]);
        Path stop = Path.of(args[7]);
        Path warehouse = Path.of(args[8]);
        Poller poller = new Poller(identifier);
        RESTCatalog rest = null;
        long errors = 0;
        while (!Files.exists(stop)) {
            try {
                if (rest == null || restart) {
                    if (rest != null) {
                        rest.close();
                    }
                    rest = RestReader.client("consumer", uri, token);
                    poller.position = Files.exists(positionFile) ? Long.valueOf(Files.readString(positionFile)) : null;
                }
                poller.poll(rest);
                if (poller.position != null) {
                    Files.writeString(positionFile, Long.toString(poller.position));
                }
            } catch (Exception e) {
                errors++;
                System.out.println("consumer error: " + e);
                e.printStackTrace(System.out);
            }
            Thread.sleep(pace); // the consumer's own pace, as a streaming source's monitor interval
        }
        if (rest != null) {
            rest.close();
        }
        Path hostExited = Path.of(stop + ".host-exited");
        while (!Files.exists(hostExited)) {
            Thread.sleep(50);
        }
        // the other consumers make their last poll too: the catalog file admits one process at a time
        for (boolean done = false; !done; ) {
            MapDbCatalog file = new MapDbCatalog();
            try {
                file.initialize("consumer", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
            } catch (CatalogInUseException e) {
                Thread.sleep(50);
                continue;
            }
            try (file) {
                poller.poll(file);
                done = true;
            }
        }
        Files.writeString(idsFile, poller.ids.stream().map(String::valueOf).collect(Collectors.joining("\n")));
        System.out.println("RESULT polls=" + poller.polls + " rows=" + poller.ids.size() + " errors=" + errors
                + " replacedCrossed=" + poller.replaced);
    }

    /** One consumer's position and what it has read. */
    private static final class Poller {
        final TableIdentifier identifier;
        final List<Long> ids = new ArrayList<>();
        Long position;
        long polls;
        long replaced;

        Poller(TableIdentifier identifier) {
            this.identifier = identifier;
        }

        void poll(Catalog catalog) throws IOException {
            Table table = catalog.loadTable(identifier);
            Snapshot head = table.currentSnapshot();
            polls++;
            if (head == null || (position != null && position == head.snapshotId())) {
                return;
            }
            IncrementalAppendScan scan = table.newIncrementalAppendScan().toSnapshot(head.snapshotId());
            long crossed = 0;
            if (position != null) {
                scan = scan.fromSnapshotExclusive(position);
                for (Snapshot s : SnapshotUtil.ancestorsBetween(table, head.snapshotId(), position)) {
                    if (DataOperations.REPLACE.equals(s.operation())) {
                        crossed++;
                    }
                }
            }
            Schema idOnly = table.schema().select("id");
            int before = ids.size();
            try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
                for (FileScanTask task : tasks) {
                    try (CloseableIterable<Record> rows = Parquet.read(
                                    table.io().newInputFile(task.file().location()))
                            .project(idOnly)
                            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(idOnly, fileSchema))
                            .build()) {
                        rows.forEach(row -> ids.add((Long) row.getField("id")));
                    }
                }
            }
            System.out.println("poll from=" + position + " to=" + head.snapshotId() + " rows=" + (ids.size() - before)
                    + " replaced=" + crossed);
            replaced += crossed;
            position = head.snapshotId();
        }
    }
}
