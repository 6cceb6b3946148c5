package dev.floe.runtime.testing;

import java.io.IOException;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * A FileIO whose disk fills up for rebuild output: once {@link #full} is set, a file a rebuild
 * writes fails after {@link #BYTES_LEFT} bytes with the error a full disk gives.
 */
public class FullDiskFileIO extends HadoopFileIO {
    public static volatile boolean full;
    public static final int BYTES_LEFT = 200;

    @Override
    public OutputFile newOutputFile(String path) {
        OutputFile real = super.newOutputFile(path);
        if (!full || !path.contains("floe-rebuild")) {
            return real;
        }
        return new OutputFile() {
            @Override
            public PositionOutputStream create() {
                return filling(real.create());
            }

            @Override
            public PositionOutputStream createOrOverwrite() {
                return filling(real.createOrOverwrite());
            }

            @Override
            public String location() {
                return real.location();
            }

            @Override
            public InputFile toInputFile() {
                return real.toInputFile();
            }
        };
    }

    private static PositionOutputStream filling(PositionOutputStream out) {
        return new PositionOutputStream() {
            private long written;

            @Override
            public long getPos() throws IOException {
                return out.getPos();
            }

            @Override
            public void write(int b) throws IOException {
                room(1);
                out.write(b);
            }

            @Override
            public void write(byte[] bytes, int off, int len) throws IOException {
                room(len);
                out.write(bytes, off, len);
            }

            private void room(int len) throws IOException {
                written += len;
                if (written > BYTES_LEFT) {
                    throw new IOException("No space left on device");
                }
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }
}
