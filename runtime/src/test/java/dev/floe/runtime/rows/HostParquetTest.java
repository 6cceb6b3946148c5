package dev.floe.runtime.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class HostParquetTest {
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    /** A file whose stream fails at the first byte (a full disk, a lost mount) and says whether it was closed. */
    private static final class FailingFile implements OutputFile {
        final AtomicBoolean closed = new AtomicBoolean();

        @Override
        public PositionOutputStream create() {
            return new PositionOutputStream() {
                @Override
                public long getPos() {
                    return 0;
                }

                @Override
                public void write(int b) throws IOException {
                    throw new IOException("no space left on device");
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    throw new IOException("no space left on device");
                }

                @Override
                public void close() {
                    closed.set(true);
                }
            };
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return create();
        }

        @Override
        public String location() {
            return "memory:/failing.parquet";
        }

        @Override
        public InputFile toInputFile() {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void aWriterWhoseFileCannotBeWrittenFailsAndClosesItsStream() throws IOException {
        HostParquet parquet = HostParquet.get();
        FailingFile file = new FailingFile();

        // the writer's first bytes wait in its buffer: the file's failure shows once they go out
        Object writer = parquet.startWriter(file, parquet.schema(SCHEMA, "table"), 1 << 20);
        IOException failure = catchThrowableOfType(IOException.class, () -> parquet.end(writer, Map.of()));
        assertThat(failure).hasMessageContaining("no space left on device");
        parquet.abort(writer, failure);
        assertThat(file.closed).isTrue();
    }
}
