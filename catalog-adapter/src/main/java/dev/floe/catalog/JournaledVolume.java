package dev.floe.catalog;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.mapdb.DBException;
import org.mapdb.DataIO;
import org.mapdb.DataInput2;
import org.mapdb.volume.ByteArrayVol;
import org.mapdb.volume.RandomAccessFileVol;
import org.mapdb.volume.Volume;
import org.mapdb.volume.VolumeFactory;

/**
 * The catalog file as MapDB's store sees it. MapDB 3.1 copies a commit into its file write by write
 * and never repairs a copy cut short (its write-ahead log lacks the index, and nothing replays it),
 * so this volume holds every write MapDB makes back until MapDB syncs the file, which it does once,
 * at the end of each commit. Then the writes go to the {@link CommitJournal} as one record, synced,
 * and only after that into the file, without a sync of the file: the journal is what makes the
 * commit durable, and the file is synced at checkpoints (when the journal outgrows {@link
 * #CHECKPOINT_BYTES}, and at close), after which the journal starts over.
 *
 * <p>So the file on disk is always the file as of the last checkpoint plus some of the writes of
 * journaled commits, and replaying the journal ({@link JournalReplay}) makes it whole.
 *
 * <p>Reads see the held writes (MapDB does not read the file during its copy, but nothing here
 * relies on that). Growing the file passes straight through: zeros past the end harm nothing.
 */
final class JournaledVolume extends Volume {
    /** Journal size past which the file is synced and the journal emptied. */
    static final long CHECKPOINT_BYTES = 4L << 20;
    /** Equal bytes between two changed ones that are journaled rather than split into two writes. */
    private static final int MERGE_GAP = 16;

    private final RandomAccessFileVol file;
    private final CommitJournal journal;
    private final List<CommitJournal.Write> held = new ArrayList<>();
    private Exception broken;

    private JournaledVolume(RandomAccessFileVol file, CommitJournal journal) {
        this.file = file;
        this.journal = journal;
    }

    /**
     * MapDB's volume factory for one catalog file: the file itself through a journaled volume, and
     * MapDB's write-ahead log of it ({@code <file>.wal.N}) in memory, as MapDB keeps the log of an
     * in-memory store. Nothing ever replays that log (MapDB 3.1 does not, and it lacks the index), and
     * the journal holds every commit, so on disk it would only cost a file created, synced and deleted
     * per commit.
     */
    static VolumeFactory factory(Path catalogFile, CommitJournal journal) {
        Path target = catalogFile.toAbsolutePath().normalize();
        String logs = target + ".wal.";
        return new VolumeFactory() {
            @Override
            public Volume makeVolume(
                    String name,
                    boolean readOnly,
                    long fileLockWait,
                    int sliceShift,
                    long initSize,
                    boolean fixedSize) {
                Path path = name == null ? null : Path.of(name).toAbsolutePath().normalize();
                if (!readOnly && target.equals(path)) {
                    return new JournaledVolume(
                            new RandomAccessFileVol(new File(name), false, fileLockWait, initSize), journal);
                }
                if (!readOnly && path != null && path.toString().startsWith(logs)) {
                    return ByteArrayVol.FACTORY.makeVolume(null, false, fileLockWait, sliceShift, initSize, fixedSize);
                }
                return RandomAccessFileVol.FACTORY.makeVolume(
                        name, readOnly, fileLockWait, sliceShift, initSize, fixedSize);
            }

            @Override
            public boolean exists(String name) {
                return RandomAccessFileVol.FACTORY.exists(name);
            }

            @Override
            public boolean handlesReadonly() {
                return true;
            }
        };
    }

    // ---- writes: held until sync ----

    @Override
    public synchronized void putLong(long offset, long value) {
        byte[] bytes = new byte[8];
        DataIO.putLong(bytes, 0, value);
        hold(offset, bytes);
    }

    @Override
    public synchronized void putInt(long offset, int value) {
        byte[] bytes = new byte[4];
        DataIO.putInt(bytes, 0, value);
        hold(offset, bytes);
    }

    @Override
    public synchronized void putByte(long offset, byte value) {
        hold(offset, new byte[] {value});
    }

    @Override
    public synchronized void putData(long offset, byte[] src, int srcPos, int srcSize) {
        byte[] bytes = new byte[srcSize];
        System.arraycopy(src, srcPos, bytes, 0, srcSize);
        hold(offset, bytes);
    }

    @Override
    public synchronized void putData(long offset, ByteBuffer buf) {
        ByteBuffer source = buf.duplicate();
        byte[] bytes = new byte[source.remaining()];
        source.get(bytes);
        hold(offset, bytes);
    }

    @Override
    public synchronized void clear(long startOffset, long endOffset) {
        hold(startOffset, new byte[Math.toIntExact(endOffset - startOffset)]);
    }

    private void hold(long offset, byte[] bytes) {
        checkUsable();
        held.add(new CommitJournal.Write(offset, bytes));
    }

    @Override
    public synchronized void ensureAvailable(long offset) {
        checkUsable();
        file.ensureAvailable(offset);
    }

    @Override
    public synchronized void truncate(long size) {
        checkUsable();
        if (!held.isEmpty()) {
            throw new IllegalStateException("MapDB truncated " + file.getFile() + " during a commit");
        }
        file.truncate(size);
    }

    /** The end of MapDB's commit: journal the held writes, synced, then write them to the file. */
    @Override
    public synchronized void sync() {
        checkUsable();
        if (held.isEmpty()) {
            return;
        }
        List<CommitJournal.Write> changes = changes(held);
        if (changes.isEmpty()) {
            held.clear();
            return;
        }
        try {
            journal.append(changes, file.length());
        } catch (IOException | RuntimeException e) {
            broken = e;
            throw new DBException.VolumeIOError(
                    new IOException("Cannot write journal " + journal.path() + ": " + e.getMessage(), e));
        }
        try {
            for (CommitJournal.Write write : changes) {
                file.putData(write.offset(), write.bytes(), 0, write.bytes().length);
            }
            held.clear();
            if (journal.size() > CHECKPOINT_BYTES) {
                file.sync();
                journal.reset();
            }
        } catch (IOException | RuntimeException e) {
            // the commit is in the journal: the next open replays it
            broken = e;
            throw new DBException.VolumeIOError(
                    new IOException("Cannot write " + file.getFile() + ": " + e.getMessage(), e));
        }
    }

    /**
     * The bytes of {@code writes} that differ from the file. MapDB rewrites its whole 32 KB header at
     * every commit, of which a few dozen bytes change. Leaving out a byte that already has its new
     * value loses nothing on replay: that value is in the file as of the last checkpoint, or in an
     * earlier record of the journal. A write that overlaps another of the same commit is kept whole,
     * as is one past the end of the file, so that the records, applied in order, give the same file.
     */
    private List<CommitJournal.Write> changes(List<CommitJournal.Write> writes) {
        boolean[] overlapping = overlapping(writes);
        long length = file.length();
        List<CommitJournal.Write> changes = new ArrayList<>();
        for (int i = 0; i < writes.size(); i++) {
            CommitJournal.Write write = writes.get(i);
            byte[] bytes = write.bytes();
            if (overlapping[i] || write.offset() + bytes.length > length) {
                changes.add(write);
                continue;
            }
            byte[] old = new byte[bytes.length];
            file.getData(write.offset(), old, 0, old.length);
            int at = 0;
            while (at < bytes.length) {
                if (bytes[at] == old[at]) {
                    at++;
                    continue;
                }
                int start = at;
                int lastDifferent = at;
                // runs of equal bytes shorter than a write's own header are cheaper to carry along
                while (at < bytes.length && at - lastDifferent <= MERGE_GAP) {
                    if (bytes[at] != old[at]) {
                        lastDifferent = at;
                    }
                    at++;
                }
                changes.add(new CommitJournal.Write(
                        write.offset() + start, Arrays.copyOfRange(bytes, start, lastDifferent + 1)));
                at = lastDifferent + 1;
            }
        }
        return changes;
    }

    /** Which writes share a byte with another write of the list. */
    private static boolean[] overlapping(List<CommitJournal.Write> writes) {
        boolean[] overlapping = new boolean[writes.size()];
        Integer[] order = new Integer[writes.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> writes.get(i).offset()));
        long furthestEnd = Long.MIN_VALUE;
        int furthest = -1;
        for (int i : order) {
            CommitJournal.Write write = writes.get(i);
            if (write.offset() < furthestEnd) {
                overlapping[i] = true;
                overlapping[furthest] = true;
            }
            long end = write.offset() + write.bytes().length;
            if (end > furthestEnd) {
                furthestEnd = end;
                furthest = i;
            }
        }
        return overlapping;
    }

    private void checkUsable() {
        if (broken != null) {
            throw new DBException.VolumeIOError(new IOException(
                    "Catalog file "
                            + file.getFile()
                            + " failed to take a commit ("
                            + broken.getMessage()
                            + "); close the catalog and open it again, which replays its journal "
                            + journal.path(),
                    broken));
        }
    }

    /**
     * A clean close: the file is synced and the journal, all of it now in the file, removed. After a
     * failure the journal stays, for the next open to replay.
     */
    @Override
    public synchronized void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            // writes still held were never synced by MapDB, so never committed: they are dropped
            held.clear();
            if (broken == null) {
                file.sync();
                journal.closeAndDelete();
            } else {
                journal.close();
            }
        } catch (IOException e) {
            throw new DBException.VolumeIOError(e);
        } finally {
            file.close();
        }
    }

    // ---- reads: the file, with held writes laid over it ----

    @Override
    public synchronized long getLong(long offset) {
        return held.isEmpty() ? file.getLong(offset) : DataIO.getLong(read(offset, 8), 0);
    }

    @Override
    public synchronized int getInt(long offset) {
        return held.isEmpty() ? file.getInt(offset) : DataIO.getInt(read(offset, 4), 0);
    }

    @Override
    public synchronized byte getByte(long offset) {
        return held.isEmpty() ? file.getByte(offset) : read(offset, 1)[0];
    }

    @Override
    public synchronized DataInput2 getDataInput(long offset, int size) {
        return held.isEmpty() ? file.getDataInput(offset, size) : new DataInput2.ByteArray(read(offset, size));
    }

    @Override
    public synchronized void getData(long offset, byte[] bytes, int bytesPos, int size) {
        if (held.isEmpty()) {
            file.getData(offset, bytes, bytesPos, size);
        } else {
            System.arraycopy(read(offset, size), 0, bytes, bytesPos, size);
        }
    }

    @Override
    public synchronized int getUnsignedShort(long offset) {
        return held.isEmpty() ? file.getUnsignedShort(offset) : super.getUnsignedShort(offset);
    }

    @Override
    public synchronized long getSixLong(long offset) {
        return held.isEmpty() ? file.getSixLong(offset) : super.getSixLong(offset);
    }

    @Override
    public synchronized long getPackedLong(long offset) {
        return held.isEmpty() ? file.getPackedLong(offset) : super.getPackedLong(offset);
    }

    private byte[] read(long offset, int size) {
        byte[] bytes = new byte[size];
        long onDisk = Math.min(size, Math.max(0, file.length() - offset));
        if (onDisk > 0) {
            file.getData(offset, bytes, 0, (int) onDisk);
        }
        for (CommitJournal.Write write : held) {
            long from = Math.max(offset, write.offset());
            long to = Math.min(offset + size, write.offset() + write.bytes().length);
            if (from < to) {
                System.arraycopy(
                        write.bytes(), (int) (from - write.offset()), bytes, (int) (from - offset), (int) (to - from));
            }
        }
        return bytes;
    }

    @Override
    public synchronized long length() {
        return file.length();
    }

    @Override
    public int sliceSize() {
        return -1;
    }

    @Override
    public boolean isSliced() {
        return false;
    }

    @Override
    public boolean isReadOnly() {
        return false;
    }

    @Override
    public File getFile() {
        return file.getFile();
    }

    @Override
    public boolean getFileLocked() {
        return false;
    }
}
