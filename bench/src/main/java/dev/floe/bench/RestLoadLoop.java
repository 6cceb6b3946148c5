package dev.floe.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A reader of the REST catalog endpoint, in the benchmark's JVM: once the host's agent says it
 * serves the catalog, it loads the table with Iceberg's own {@code RESTCatalog}, {@value
 * #LOADS_PER_SECOND} times a second, and times each load, until the host's commits are done (its
 * RESULT line). Loads before the host created the table are counted apart, not timed.
 */
final class RestLoadLoop {
    static final int LOADS_PER_SECOND = 20;
    private static final Pattern ENDPOINT = Pattern.compile("serves the Iceberg REST catalog at (http://\\S+/) ");

    private final TableIdentifier table;
    private volatile String uri;
    private volatile boolean stopped;
    private Thread thread;
    private final List<Double> loads = new ArrayList<>(); // guarded by this
    private long notFound; // guarded by this: after the table was first found
    private long errors; // guarded by this
    private String lastError; // guarded by this

    record Result(List<Double> loads, long notFound, long errors, String lastError) {}

    RestLoadLoop(String table) {
        this.table = TableIdentifier.parse(table);
    }

    /** The host's output, line by line: starts the loop once the endpoint serves. */
    void onHostLine(String line) {
        Matcher endpoint = ENDPOINT.matcher(line);
        if (endpoint.find()) {
            uri = endpoint.group(1);
        }
        if (line.contains("the REST catalog endpoint serves MapDbCatalog") && uri != null) {
            start();
        }
        if (line.startsWith("RESULT ")) {
            stopped = true; // the host's commits are done, and it is about to end: the loads too
        }
    }

    private synchronized void start() {
        if (thread != null) {
            return;
        }
        thread = new Thread(this::loop, "bench-rest-reader");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops the loop (the host has ended) and returns what it measured. */
    Result stop() throws InterruptedException {
        stopped = true;
        Thread running;
        synchronized (this) {
            running = thread;
        }
        if (running != null) {
            running.join(TimeUnit.MINUTES.toMillis(1));
        }
        synchronized (this) {
            return new Result(List.copyOf(loads), notFound, errors, lastError);
        }
    }

    private void loop() {
        long period = TimeUnit.SECONDS.toNanos(1) / LOADS_PER_SECOND;
        boolean found = false;
        try (RESTCatalog catalog = new RESTCatalog()) {
            catalog.initialize(
                    "bench-reader",
                    Map.of(
                            CatalogProperties.URI,
                            uri,
                            CatalogProperties.FILE_IO_IMPL,
                            "org.apache.iceberg.hadoop.HadoopFileIO"));
            long next = System.nanoTime();
            while (!stopped) {
                long start = System.nanoTime();
                try {
                    catalog.loadTable(table);
                    double ms = (System.nanoTime() - start) / 1e6;
                    found = true;
                    synchronized (this) {
                        loads.add(ms);
                    }
                } catch (NoSuchTableException e) {
                    if (found) {
                        synchronized (this) {
                            notFound++;
                        }
                    }
                } catch (RuntimeException e) {
                    if (!stopped) {
                        synchronized (this) {
                            errors++;
                            lastError = e.toString();
                        }
                    }
                }
                next += period;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } else {
                    next = System.nanoTime();
                }
            }
        } catch (Exception e) {
            synchronized (this) {
                errors++;
                lastError = e.toString();
            }
        }
    }
}
