package dev.floe.agent.cli;

import dev.floe.runtime.Prune;
import dev.floe.runtime.rebuild.CompactionProbe;
import dev.floe.runtime.rebuild.CompactionStep;
import dev.floe.runtime.rebuild.SourceStats;
import java.io.Console;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A rebuild's progress: rows done of those the plan rewrites (read row by row, counted as the prune
 * sees them, or copied with their row groups), bytes read (estimated from the rows, as the share of
 * the bytes the plan reads), rate and ETA; the files the plan keeps as they are are named once and
 * never counted. On a terminal a bar redrawn in place; otherwise a plain line per step and one every
 * few seconds while rows stream.
 */
final class Progress implements CompactionProbe, AutoCloseable {
    private static final long PLAIN_EVERY_NANOS = 5_000_000_000L;
    private static final int BAR = 30;

    private final TableIdentifier table;
    private final SourceStats source;
    private final boolean inPlace;
    private final ProgressOutput output;
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong files = new AtomicLong();
    /** What the plan reads: rows and bytes; the whole source until it is known. */
    private volatile long totalRows;

    private volatile long totalBytes;
    private volatile long started = System.nanoTime();
    private volatile boolean streaming;
    private volatile boolean closed;
    private final Thread ticker;

    /** {@code inPlace}: the rebuilt table is committed in place, not swapped in (another catalog). */
    Progress(TableIdentifier table, SourceStats source, boolean inPlace, boolean terminal, PrintStream out) {
        this.table = table;
        this.source = source;
        this.totalRows = source.rows();
        this.totalBytes = source.bytes();
        this.inPlace = inPlace;
        this.output = new ProgressOutput(out, terminal);
        this.ticker = new Thread(this::tick, "floe-cli-progress");
        ticker.setDaemon(true);
        ticker.start();
    }

    /** True when standard output and error go to a terminal. */
    static boolean terminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            // Java 22+: System.console() is non-null even when redirected; isTerminal() tells
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (NoSuchMethodException e) {
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** {@code prune}, counting every row it sees. */
    Prune counting(Prune prune) {
        return new Prune() {
            @Override
            public boolean drop(org.apache.iceberg.data.Record row) throws Exception {
                rows.incrementAndGet();
                return prune.drop(row);
            }

            @Override
            public boolean keepsEveryRow() {
                return prune.keepsEveryRow();
            }
        };
    }

    @Override
    public void reached(CompactionStep step, TableIdentifier at) {
        CompactRun.crashPoint(step);
        switch (step) {
            case PINNED:
                rows.set(0);
                files.set(0);
                started = System.nanoTime();
                totalRows = source.rows();
                totalBytes = source.bytes();
                line("pinned " + Text.count(source.rows()) + " rows in " + Text.count(source.dataFiles())
                        + " data files (" + Text.bytes(source.bytes()) + ")");
                break;
            case SCRATCH_CREATED:
                streaming = true;
                break;
            case FILE_STARTED:
                line("writing rebuilt file " + files.incrementAndGet());
                break;
            case ROWS_WRITTEN:
                streaming = false;
                line(progress() + ", all rows written");
                break;
            case CAUGHT_UP:
                line("caught up with commits since the base; committing the rebuilt table");
                break;
            case SWAPPED:
                line(
                        inPlace
                                ? "committed the rebuilt table in place (the catalog's compare-and-swap)"
                                : "swapped the rebuilt table into " + table);
                break;
            case RECLAIM_RECORDED:
                line("reclaim job recorded");
                break;
            default:
                break;
        }
    }

    @Override
    public void planned(
            TableIdentifier at, long readFiles, long readRows, long readBytes, long keptFiles, long keptBytes) {
        totalRows = readRows;
        totalBytes = readBytes;
        rows.set(0); // a prune may have counted the rows of the files the plan keeps, reading them
        line("reading " + Text.count(readRows) + " rows in " + Text.count(readFiles) + " data files ("
                + Text.bytes(readBytes) + ")"
                + (keptFiles > 0
                        ? "; keeping " + Text.count(keptFiles) + " data files (" + Text.bytes(keptBytes)
                                + ") as they are"
                        : ""));
    }

    @Override
    public void copied(TableIdentifier at, long files, long copiedRows, long bytes) {
        rows.addAndGet(copiedRows);
        line("copied the row groups of " + Text.count(files) + " data files (" + Text.bytes(bytes) + ", "
                + Text.count(copiedRows) + " rows) as they are");
    }

    private synchronized void line(String text) {
        output.line("floe: compact " + table + ": " + text);
        if (output.terminal() && streaming) {
            drawBar();
        }
    }

    private void tick() {
        long lastPlain = System.nanoTime();
        while (!closed) {
            try {
                Thread.sleep(output.terminal() ? 200 : 500);
            } catch (InterruptedException e) {
                return;
            }
            if (!streaming || closed) {
                continue;
            }
            if (output.terminal()) {
                synchronized (this) {
                    drawBar();
                }
            } else if (System.nanoTime() - lastPlain >= PLAIN_EVERY_NANOS) {
                lastPlain = System.nanoTime();
                line(progress());
            }
        }
    }

    /** "1,200/1,500 rows (80%), ~0.9 MiB/1.2 MiB read, 3,000 rows/s, ETA 0s" */
    private String progress() {
        long done = rows.get();
        long total = Math.max(totalRows, done);
        double share = total == 0 ? 1 : (double) done / total;
        double seconds = Math.max(1e-3, (System.nanoTime() - started) / 1e9);
        double rate = done / seconds;
        String eta = rate <= 0 ? "?" : Text.duration(Duration.ofSeconds((long) Math.ceil((total - done) / rate)));
        return String.format(
                Locale.ROOT,
                "%s/%s rows (%d%%), ~%s/%s read, %s rows/s, ETA %s",
                Text.count(done),
                Text.count(total),
                Math.round(share * 100),
                Text.bytes((long) (totalBytes * share)),
                Text.bytes(totalBytes),
                Text.count(Math.round(rate)),
                eta);
    }

    private void drawBar() {
        long total = Math.max(1, Math.max(totalRows, rows.get()));
        int filled = (int) Math.min(BAR, BAR * rows.get() / total);
        String bar = "[" + "#".repeat(filled) + ".".repeat(BAR - filled) + "] " + progress();
        output.redraw(bar);
    }

    @Override
    public synchronized void close() {
        closed = true;
        streaming = false;
        output.clear();
        output.flush();
        ticker.interrupt();
    }
}
