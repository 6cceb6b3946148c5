package dev.floe.runtime.rows;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Supplier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;

/**
 * The rows of one file, opened when they are first iterated and closed, and let go, as soon as the
 * last is read (or the iterator is closed): a stream over many files then holds one open reader at
 * a time, not one per file from its start.
 */
final class OpenedOnRead<T> implements CloseableIterable<T> {
    private final Supplier<CloseableIterable<T>> open;
    private CloseableIterable<T> opened;

    private OpenedOnRead(Supplier<CloseableIterable<T>> open) {
        this.open = open;
    }

    static <T> CloseableIterable<T> of(Supplier<CloseableIterable<T>> open) {
        return new OpenedOnRead<>(open);
    }

    @Override
    public CloseableIterator<T> iterator() {
        closeOpened();
        opened = open.get();
        CloseableIterator<T> rows = opened.iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                if (rows.hasNext()) {
                    return true;
                }
                close();
                return false;
            }

            @Override
            public T next() {
                return rows.next();
            }

            @Override
            public void close() {
                try {
                    rows.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    closeOpened();
                }
            }
        };
    }

    @Override
    public void close() {
        closeOpened();
    }

    private void closeOpened() {
        CloseableIterable<T> current = opened;
        opened = null;
        if (current != null) {
            try {
                current.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
