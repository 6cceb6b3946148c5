package dev.floe.runtime.rows;

import java.io.IOException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * An output file whose stream hands its bytes on a MiB at a time. parquet-java copies a row group's
 * column chunks 8 KiB at a time, and Hadoop's local file system buffers 4 KiB by default, so each
 * step was a write of its own: in a profile of a warm promotion those writes were two thirds of
 * the copy. One buffer per file being copied into; positions count what it holds.
 */
final class BufferedOutputFile implements OutputFile {
    static final int BUFFER_BYTES = 1 << 20;

    private final OutputFile file;

    BufferedOutputFile(OutputFile file) {
        this.file = file;
    }

    @Override
    public PositionOutputStream create() {
        return new Buffered(file.create());
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
        return new Buffered(file.createOrOverwrite());
    }

    @Override
    public String location() {
        return file.location();
    }

    @Override
    public InputFile toInputFile() {
        return file.toInputFile();
    }

    private static final class Buffered extends PositionOutputStream {
        private final PositionOutputStream out;
        private final byte[] buffer = new byte[BUFFER_BYTES];
        private int count;

        Buffered(PositionOutputStream out) {
            this.out = out;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos() + count;
        }

        @Override
        public void write(int b) throws IOException {
            if (count == buffer.length) {
                drain();
            }
            buffer[count++] = (byte) b;
        }

        @Override
        public void write(byte[] bytes, int off, int len) throws IOException {
            if (len >= buffer.length) {
                drain();
                out.write(bytes, off, len);
                return;
            }
            if (len > buffer.length - count) {
                drain();
            }
            System.arraycopy(bytes, off, buffer, count, len);
            count += len;
        }

        @Override
        public void flush() throws IOException {
            drain();
            out.flush();
        }

        @Override
        public void close() throws IOException {
            try {
                drain();
            } finally {
                out.close();
            }
        }

        private void drain() throws IOException {
            if (count > 0) {
                out.write(buffer, 0, count);
                count = 0;
            }
        }
    }
}
