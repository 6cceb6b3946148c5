package dev.floe.catalog;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;

/**
 * The exclusive lock that keeps every other process away from a catalog file while it is open
 * here, taken on {@code <file>.lock} before MapDB opens the file.
 *
 * <p>Not on the catalog file itself, and not MapDB's lock: when MapDB refuses a file (damaged, or
 * locked) it leaves a channel to it open, and when the garbage collector later closes that
 * channel, POSIX drops every lock this process holds on the file, so a catalog opened afterwards
 * would silently stop being exclusive, or a damaged file would stay locked by this process and be
 * reported as in use. Nothing but this class opens the lock file.
 *
 * <p>The holder writes its process id into the lock file, so that a process refused can say which
 * process holds the file (the lock is advisory: the refused one can still read it).
 */
final class ProcessLock {
    private final Path path;
    private final FileChannel channel;
    private final boolean created;

    private ProcessLock(Path path, FileChannel channel, boolean created) {
        this.path = path;
        this.channel = channel;
        this.created = created;
    }

    static ProcessLock acquire(Path file) {
        Path path = file.resolveSibling(file.getFileName() + ".lock");
        FileChannel channel;
        boolean created;
        try {
            try {
                channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                created = true;
            } catch (FileAlreadyExistsException exists) {
                channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                created = false;
            }
        } catch (IOException e) {
            throw CatalogFormat.cannotCreate(file, "lock file", path, e);
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // this JVM has the file open under another name
        } catch (IOException e) {
            closeQuietly(channel);
            throw new CatalogFileException(file, "Cannot lock " + path + " (" + CatalogFormat.describe(e) + ")", e);
        }
        if (lock == null) {
            closeQuietly(channel);
            throw new CatalogInUseException(file, holder(path), null);
        }
        writeHolder(channel);
        return new ProcessLock(path, channel, created);
    }

    /** Writes this process's id into the lock file it holds; best effort, the lock is what counts. */
    private static void writeHolder(FileChannel channel) {
        try {
            channel.truncate(0);
            channel.write(
                    ByteBuffer.wrap(Long.toString(ProcessHandle.current().pid())
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII)),
                    0);
        } catch (IOException | UnsupportedOperationException e) {
            // a process refused then cannot name this one, nothing more
        }
    }

    /** The id of the process that holds {@code lockFile}, as it wrote it there; empty if unknown. */
    private static OptionalLong holder(Path lockFile) {
        try {
            String text = Files.readString(lockFile, java.nio.charset.StandardCharsets.US_ASCII)
                    .trim();
            return text.matches("[0-9]{1,18}") ? OptionalLong.of(Long.parseLong(text)) : OptionalLong.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** Lets other processes in; closing the channel releases the lock. */
    void release() {
        closeQuietly(channel);
    }

    /** Releases the lock of a file that was refused, and removes the lock file if it was new. */
    void abandon() {
        release();
        if (created) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                // an empty lock file left behind harms nothing
            }
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing more to release
        }
    }
}
