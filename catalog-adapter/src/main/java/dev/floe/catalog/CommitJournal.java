package dev.floe.catalog;

import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * floe's redo journal of one catalog file, {@code <file>.journal}: each MapDB commit's writes to
 * the file, as one checksummed record that is on disk (fsync) before any of those writes reaches
 * the file (see {@link JournaledVolume}). Whatever instant the process dies, the file plus every
 * complete record of its journal, replayed in order ({@link JournalReplay}), is the state after the
 * last commit that was journaled; a record that is not complete belongs to a commit that never
 * returned, none of whose writes reached the file.
 *
 * <p>Records hold absolute bytes at absolute offsets, so replaying any complete prefix again onto a
 * file that already holds it changes nothing: a crash during recovery is recovered the same way.
 *
 * <p>Layout: a 16-byte header ({@link #MAGIC}), then records of {@code int magic, int payload
 * length, long sequence, long file length after the commit}, the payload ({@code long offset, int
 * length, bytes}, per write), and a CRC32C of everything before it in the record. Only the last
 * record can be torn by a crash: each one is synced before the next is written.
 *
 * <p>A RandomAccessFile, not a FileChannel: an interrupted thread closes a FileChannel for every
 * thread, which would break the catalog for the whole process.
 */
final class CommitJournal implements Closeable {
    static final String SUFFIX = ".journal";
    static final byte[] MAGIC = "floe-journal-v1\n".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER = MAGIC.length;
    private static final int RECORD_MAGIC = 0x666c6f65; // "floe"
    private static final int RECORD_HEAD = 4 + 4 + 8 + 8;
    private static final int RECORD_CHECKSUM = 4;
    private static final int WRITE_HEAD = 8 + 4;

    /** One write of a commit to the catalog file. */
    record Write(long offset, byte[] bytes) {}

    /** One commit read back from a journal. */
    record Commit(long sequence, long fileLength, List<Write> writes) {}

    /**
     * What a journal holds: its complete commits, oldest first, and how many bytes followed them that
     * are not a complete commit (the torn record of a commit in flight).
     */
    record Contents(List<Commit> commits, long tornBytes) {}

    /** The file is not a floe journal: its header is something else. */
    static final class NotAJournalException extends IOException {
        NotAJournalException(Path path) {
            super(path + " does not start with a floe journal header");
        }
    }

    private final Path path;
    private final RandomAccessFile out;
    private long end = HEADER;
    private long nextSequence;

    private CommitJournal(Path path, RandomAccessFile out) {
        this.path = path;
        this.out = out;
    }

    static Path pathOf(Path catalogFile) {
        return DurableFiles.sibling(catalogFile, SUFFIX);
    }

    /**
     * Starts the journal of {@code catalogFile}, which must not have one: a journal left by a crash is
     * replayed and removed by {@link JournalReplay} first, never overwritten.
     */
    static CommitJournal start(Path catalogFile) throws IOException {
        Path path = pathOf(catalogFile);
        Files.createFile(path); // refuses to replace a journal that is there
        RandomAccessFile out = new RandomAccessFile(path.toFile(), "rw");
        try {
            out.write(MAGIC);
            out.getFD().sync();
            DurableFiles.syncFolderOf(path);
            return new CommitJournal(path, out);
        } catch (IOException | RuntimeException e) {
            out.close();
            Files.deleteIfExists(path);
            throw e;
        }
    }

    Path path() {
        return path;
    }

    /** Bytes in the journal, header included. */
    long size() {
        return end;
    }

    /** Appends one commit and syncs it: once this returns, the commit survives any crash. */
    void append(List<Write> writes, long fileLength) throws IOException {
        long payload = 0;
        for (Write write : writes) {
            payload += WRITE_HEAD + write.bytes().length;
        }
        if (payload > Integer.MAX_VALUE - RECORD_HEAD - RECORD_CHECKSUM) {
            throw new IOException("A commit of " + payload + " bytes is too large for one journal record");
        }
        ByteBuffer record = ByteBuffer.allocate(RECORD_HEAD + (int) payload + RECORD_CHECKSUM);
        record.putInt(RECORD_MAGIC).putInt((int) payload).putLong(nextSequence).putLong(fileLength);
        for (Write write : writes) {
            record.putLong(write.offset()).putInt(write.bytes().length).put(write.bytes());
        }
        CRC32C crc = new CRC32C();
        crc.update(record.array(), 0, record.position());
        record.putInt((int) crc.getValue());
        out.seek(end);
        out.write(record.array(), 0, record.position());
        out.getFD().sync();
        end += record.position();
        nextSequence++;
    }

    /**
     * Empties the journal once the catalog file itself is synced: its records are all in the file.
     * The empty journal is synced before any new record follows, so an old record is never replayed
     * after a newer one.
     */
    void reset() throws IOException {
        out.setLength(HEADER);
        out.getFD().sync();
        end = HEADER;
    }

    /** Closes and removes the journal; only once the catalog file is synced. */
    void closeAndDelete() throws IOException {
        out.close();
        Files.deleteIfExists(path);
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    /** Reads a journal left behind: its complete commits and the size of a torn tail. */
    static Contents read(Path path) throws IOException {
        byte[] all = Files.readAllBytes(path);
        if (all.length < HEADER) {
            // a crash while the journal was being started: no record was ever written to it
            if (!Arrays.equals(all, 0, all.length, MAGIC, 0, all.length)) {
                throw new NotAJournalException(path);
            }
            return new Contents(List.of(), 0);
        }
        if (!Arrays.equals(all, 0, HEADER, MAGIC, 0, HEADER)) {
            throw new NotAJournalException(path);
        }
        ByteBuffer in = ByteBuffer.wrap(all);
        in.position(HEADER);
        List<Commit> commits = new ArrayList<>();
        Long expected = null;
        while (true) {
            int start = in.position();
            Commit commit = readRecord(in, all);
            if (commit == null || (expected != null && commit.sequence() != expected)) {
                return new Contents(List.copyOf(commits), all.length - start);
            }
            commits.add(commit);
            expected = commit.sequence() + 1;
        }
    }

    /** The record at {@code in}'s position, or null if there is no complete, intact one. */
    private static Commit readRecord(ByteBuffer in, byte[] all) {
        int start = in.position();
        if (in.remaining() < RECORD_HEAD + RECORD_CHECKSUM || in.getInt() != RECORD_MAGIC) {
            return null;
        }
        int payload = in.getInt();
        long sequence = in.getLong();
        long fileLength = in.getLong();
        if (payload < 0 || payload > in.remaining() - RECORD_CHECKSUM) {
            return null;
        }
        CRC32C crc = new CRC32C();
        crc.update(all, start, RECORD_HEAD + payload);
        if (in.getInt(start + RECORD_HEAD + payload) != (int) crc.getValue()) {
            return null;
        }
        List<Write> writes = new ArrayList<>();
        int payloadEnd = start + RECORD_HEAD + payload;
        while (in.position() < payloadEnd) {
            long offset = in.getLong();
            int length = in.getInt();
            byte[] bytes = new byte[length];
            in.get(bytes);
            writes.add(new Write(offset, bytes));
        }
        in.position(payloadEnd + RECORD_CHECKSUM);
        return new Commit(sequence, fileLength, List.copyOf(writes));
    }
}
