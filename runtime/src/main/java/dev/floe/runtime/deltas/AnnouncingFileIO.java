package dev.floe.runtime.deltas;

import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * A table's FileIO that tells {@code onNewFile} each file's location before the file is created:
 * for writers that name their files themselves (Iceberg's deletion-vector writer), so a rebuild's
 * journal still lists every file it wrote.
 */
final class AnnouncingFileIO implements FileIO {
    private final FileIO io;
    private final Consumer<String> onNewFile;

    AnnouncingFileIO(FileIO io, Consumer<String> onNewFile) {
        this.io = io;
        this.onNewFile = onNewFile;
    }

    @Override
    public InputFile newInputFile(String path) {
        return io.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        return io.newInputFile(path, length);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        onNewFile.accept(path);
        return io.newOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
        io.deleteFile(path);
    }

    @Override
    public Map<String, String> properties() {
        return io.properties();
    }
}
