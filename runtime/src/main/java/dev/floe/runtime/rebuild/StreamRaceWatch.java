package dev.floe.runtime.rebuild;

import dev.floe.runtime.deltas.CatchUp;
import dev.floe.runtime.seam.RebuildCatalog;
import java.io.IOException;
import java.util.Objects;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;

/**
 * Step 3's look-out: while the rows stream, whether a commit has landed on the live table that will
 * make this attempt start again (anything but an append, see {@link CatchUp}). Such an attempt stops
 * at once instead of streaming the whole table first: a table whose every commit is a row delta
 * costs one short attempt per commit, not a full read.
 *
 * <p>Every {@value #EVERY_ROWS} rows it compares the live pointer ({@link
 * RebuildCatalog#currentLocation}: from memory for floe's own catalog, at a bounded rate for others)
 * with the last one it saw; only when it moved does it read the new metadata, and no manifest.
 */
public final class StreamRaceWatch {
    public static final int EVERY_ROWS = 4096;

    /** Thrown out of the stream when the attempt must start again. */
    static final class Raced extends RuntimeException {
        Raced(String reason) {
            super(reason, null, false, false);
        }
    }

    private final RebuildCatalog catalog;
    private final TableIdentifier identifier;
    private final TableOperations liveOps;
    private final TableMetadata base;
    private String seen;

    private final java.util.function.BooleanSupplier stop;

    StreamRaceWatch(RebuildCatalog catalog, TableIdentifier identifier, TableOperations liveOps, TableMetadata base) {
        this.catalog = catalog;
        this.identifier = identifier;
        this.liveOps = liveOps;
        this.base = base;
        this.seen = base.metadataFileLocation();
        this.stop = null;
    }

    private StreamRaceWatch(java.util.function.BooleanSupplier stop) {
        this.catalog = null;
        this.identifier = null;
        this.liveOps = null;
        this.base = null;
        this.stop = stop;
    }

    /**
     * A watch that looks at no table, only at {@code stop} (a major rebuild, which commits nothing
     * and so meets no race: the rebuild that installs it checks what landed).
     */
    static StreamRaceWatch stoppedBy(java.util.function.BooleanSupplier stop) {
        return new StreamRaceWatch(stop);
    }

    /** {@code rows}, checked every {@value #EVERY_ROWS} rows. */
    CloseableIterable<Record> watch(CloseableIterable<Record> rows) {
        return new CloseableIterable<>() {
            @Override
            public CloseableIterator<Record> iterator() {
                CloseableIterator<Record> inner = rows.iterator();
                return new CloseableIterator<>() {
                    private long count;

                    @Override
                    public boolean hasNext() {
                        return inner.hasNext();
                    }

                    @Override
                    public Record next() {
                        if (++count % EVERY_ROWS == 0) {
                            check();
                        }
                        return inner.next();
                    }

                    @Override
                    public void close() throws IOException {
                        inner.close();
                    }
                };
            }

            @Override
            public void close() throws IOException {
                rows.close();
            }
        };
    }

    /** Throws {@link Raced} if the live table has moved in a way this attempt cannot carry. */
    void check() {
        if (stop != null) {
            if (stop.getAsBoolean()) {
                throw new Raced("stopped");
            }
            return;
        }
        String now = catalog.currentLocation(identifier, liveOps);
        if (Objects.equals(now, seen)) {
            return;
        }
        seen = now;
        String conflict = CatchUp.conflict(base, liveOps.refresh());
        if (conflict != null) {
            throw new Raced(conflict);
        }
    }
}
