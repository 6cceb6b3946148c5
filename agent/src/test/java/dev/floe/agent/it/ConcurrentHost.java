package dev.floe.agent.it;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * A host that knows nothing of floe: several writer threads appending through their own handles
 * while reader threads scan the table over and over. Prints {@code acked <firstId> <count>} per
 * commit and one {@code RESULT} line: commits, errors (exceptions that reached a writer), scans,
 * missing (scans that found no table), decreases (a scan that counted fewer rows than an earlier
 * one of the same reader).
 *
 * <p>Arguments: warehouse, writers, commitsPerWriter, rowsPerCommit, readers.
 */
public final class ConcurrentHost {
    private ConcurrentHost() {}

    public static void main(String[] args) throws Exception {
        String warehouse = args[0];
        int writers = Integer.parseInt(args[1]);
        int commitsEach = Integer.parseInt(args[2]);
        int rows = Integer.parseInt(args[3]);
        int readers = Integer.parseInt(args[4]);
        Catalog setup = catalog(warehouse, "setup");
        ((SupportsNamespaces) setup).createNamespace(Namespace.of("db"));
        // many writers race for each commit: let Iceberg retry them patiently, as such a host would
        setup.createTable(
                CrashHost.EVENTS,
                CrashHost.SCHEMA,
                org.apache.iceberg.PartitionSpec.unpartitioned(),
                Map.of(
                        TableProperties.COMMIT_NUM_RETRIES, "50",
                        TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "5",
                        TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "200"));

        AtomicLong nextId = new AtomicLong();
        AtomicLong commits = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong scans = new AtomicLong();
        AtomicLong missing = new AtomicLong();
        AtomicLong decreases = new AtomicLong();
        AtomicBoolean writing = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>();
        List<Thread> writerThreads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            Table handle = catalog(warehouse, "writer-" + w).loadTable(CrashHost.EVENTS);
            Thread writer = new Thread(
                    () -> {
                        for (int i = 0; i < commitsEach; i++) {
                            long first = nextId.getAndAdd(rows);
                            try {
                                handle.newFastAppend()
                                        .appendFile(CrashHostFiles.write(handle, first, rows))
                                        .commit();
                                synchronized (System.out) {
                                    System.out.println("acked " + first + " " + rows);
                                }
                                commits.incrementAndGet();
                            } catch (Throwable e) {
                                errors.incrementAndGet();
                                System.out.println("writer error: " + e);
                            }
                        }
                    },
                    "writer-" + w);
            writerThreads.add(writer);
            threads.add(writer);
        }
        for (int r = 0; r < readers; r++) {
            Catalog readerCatalog = catalog(warehouse, "reader-" + r);
            threads.add(new Thread(
                    () -> {
                        long lastCount = 0;
                        while (writing.get()) {
                            try {
                                Table table = readerCatalog.loadTable(CrashHost.EVENTS);
                                table.refresh();
                                long count = 0;
                                try (CloseableIterable<Record> all =
                                        IcebergGenerics.read(table).select("id").build()) {
                                    for (Record ignored : all) {
                                        count++;
                                    }
                                }
                                scans.incrementAndGet();
                                if (count < lastCount) {
                                    decreases.incrementAndGet();
                                    System.out.println("reader saw " + count + " rows after " + lastCount);
                                }
                                lastCount = count;
                                Thread.sleep(20); // a reader that queries often, not one that spins
                            } catch (org.apache.iceberg.exceptions.NoSuchTableException e) {
                                missing.incrementAndGet();
                                System.out.println("reader found no table: " + e);
                            } catch (Throwable e) {
                                errors.incrementAndGet();
                                System.out.println("reader error: " + e);
                            }
                        }
                    },
                    "reader-" + r));
        }
        threads.forEach(Thread::start);
        for (Thread writer : writerThreads) {
            writer.join();
        }
        writing.set(false);
        for (Thread thread : threads) {
            thread.join();
        }
        System.out.println("RESULT commits=" + commits + " errors=" + errors + " scans=" + scans + " missing=" + missing
                + " decreases=" + decreases);
        System.exit(0);
    }

    private static Catalog catalog(String warehouse, String name) {
        Map<String, String> properties = new HashMap<>();
        properties.put("warehouse", warehouse);
        return CatalogUtil.loadCatalog("dev.floe.catalog.MapDbCatalog", name, properties, null);
    }
}
