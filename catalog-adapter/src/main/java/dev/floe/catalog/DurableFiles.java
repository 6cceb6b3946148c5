package dev.floe.catalog;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** The few file system steps whose order the catalog's crash safety rests on. */
final class DurableFiles {
    private DurableFiles() {}

    /** Makes the names in {@code file}'s folder (a create, rename or delete there) survive a crash. */
    static void syncFolderOf(Path file) throws IOException {
        Path folder = file.toAbsolutePath().getParent();
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // some platforms (Windows) cannot open a folder; their renames are durable by themselves
            if (Files.isDirectory(folder) && System.getProperty("os.name", "").startsWith("Windows")) {
                return;
            }
            throw e;
        }
    }

    /** Writes {@code file}'s content to the disk. */
    static void sync(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
    }

    /** {@code file} with {@code suffix} appended to its name, in the same folder. */
    static Path sibling(Path file, String suffix) {
        return file.resolveSibling(file.getFileName() + suffix);
    }
}
