package dev.floe.runtime.history;

import dev.floe.runtime.deltas.CompactionMap;
import dev.floe.runtime.deltas.CompactionMap.Run;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * Where the rows of files that left the table's layout are now: for each data file a rebuild
 * rewrote (this one or an earlier one) that a kept snapshot may still reference, runs of (source
 * position, file of the current layout, position there, length). It is the compaction maps of the
 * rebuilds since, composed: a later rebuild that rewrites a file these runs land in moves them on
 * through its own map ({@link #composedWith}).
 *
 * <p>Kept because a snapshot is rewritten onto the new layout only once it is older than {@code
 * floe.history.rewrite-after}, usually several rebuilds after the one that consumed its files: each
 * rebuild writes the composed map next to the table's metadata and names it in its rebuilt snapshot's
 * summary ({@link #SUMMARY_KEY}), where the next rebuild, in this process or another, finds it. An
 * entry goes once no snapshot that is still waiting for its rewrite can reference its file: every
 * entry records the sequence number of the rebuilt snapshot of the rebuild that consumed its file,
 * and a snapshot with a higher number never listed that file.
 *
 * <p>A row a rebuild dropped because it was deleted is in no run: a snapshot from before that
 * delete keeps the file as it is ({@link SnapshotImage}). A row a prune dropped is in a run to
 * {@link CompactionMap#PRUNED}: a snapshot rewritten onto the layout loses it, as the table did.
 */
public final class LayoutMap {
    /** The summary key of a rebuilt snapshot that names its layout map. */
    public static final String SUMMARY_KEY = dev.floe.runtime.seam.ReachableFiles.LAYOUT_MAP;

    /** The sequence number of the entries of the rebuild that writes the map: that of its rebuilt snapshot, known once it is read back. */
    static final long THIS_REBUILD = Long.MAX_VALUE;

    private static final int MAGIC = 0x464c4d31; // "FLM1"

    /** The runs of one file that left the layout, and the sequence number of the rebuilt snapshot that consumed it. */
    record Entry(long consumedAt, List<Run> runs) {}

    private final Map<String, Entry> entries;

    private LayoutMap(Map<String, Entry> entries) {
        this.entries = entries;
    }

    static LayoutMap empty() {
        return new LayoutMap(new LinkedHashMap<>());
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    int size() {
        return entries.size();
    }

    /** The runs of {@code file}, or null when no rebuild recorded where its rows went. */
    Entry entry(String file) {
        return entries.get(file);
    }

    /**
     * This map carried through {@code map}, the compaction map of a rebuild whose own entries carry
     * {@code consumedAt}: runs landing in a file it kept stay, runs landing in
     * a file it rewrote follow that file's runs (a row it dropped cuts them), runs landing in a file
     * it neither kept nor rewrote (removed before its pin) are gone; and every file it rewrote is
     * added with its own runs.
     */
    LayoutMap composedWith(CompactionMap map, long consumedAt) {
        Map<String, Entry> composed = new LinkedHashMap<>();
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            List<Run> runs = new ArrayList<>();
            for (Run run : e.getValue().runs()) {
                if (CompactionMap.PRUNED.equals(run.target()) || map.isKept(run.target())) {
                    runs.add(run);
                } else if (map.isMapped(run.target())) {
                    follow(run, map.allRunsOf(run.target()), runs);
                }
            }
            composed.put(e.getKey(), new Entry(e.getValue().consumedAt(), runs));
        }
        for (String source : map.rewritten()) {
            if (map.isMapped(source)) {
                composed.put(source, new Entry(consumedAt, map.allRunsOf(source)));
            }
        }
        return new LayoutMap(composed);
    }

    /** The parts of {@code run} that {@code next} (its target's runs, in source order) moved on, into {@code into}. */
    private static void follow(Run run, List<Run> next, List<Run> into) {
        long from = run.targetStart();
        long to = from + run.length();
        for (Run step : next) {
            long start = Math.max(from, step.sourceStart());
            long end = Math.min(to, step.sourceStart() + step.length());
            if (start >= end) {
                if (step.sourceStart() >= to) {
                    break;
                }
                continue;
            }
            into.add(new Run(
                    run.sourceStart() + (start - from),
                    step.target(),
                    step.targetStart() + (start - step.sourceStart()),
                    end - start));
        }
    }

    /** This map without the files consumed before {@code sequence}: no snapshot waiting for its rewrite references them. */
    LayoutMap consumedFrom(long sequence) {
        Map<String, Entry> kept = new LinkedHashMap<>();
        entries.forEach((file, entry) -> {
            if (entry.consumedAt() >= sequence) {
                kept.put(file, entry);
            }
        });
        return new LayoutMap(kept);
    }

    /** The map's first four bytes, {@link #MAGIC}, then its gzip stream (locations share long prefixes). */
    private static final class MagicFirst extends java.io.FilterOutputStream {
        MagicFirst(OutputStream out) throws IOException {
            super(out);
            new DataOutputStream(out).writeInt(MAGIC);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        /** {@code in} past the magic; throws {@link IllegalStateException} for a file that is not a map. */
        static InputStream check(InputStream in, String location) throws IOException {
            if (new DataInputStream(in).readInt() != MAGIC) {
                throw new IllegalStateException("not a floe layout map: " + location);
            }
            return in;
        }
    }

    /** Writes this map to {@code out}: each target location once, then each file's runs (gzipped). */
    void write(OutputFile out) {
        Map<String, Integer> targets = new LinkedHashMap<>();
        entries.values().forEach(e -> e.runs().forEach(r -> targets.putIfAbsent(r.target(), targets.size())));
        try (OutputStream raw = out.createOrOverwrite();
                DataOutputStream data = new DataOutputStream(new java.io.BufferedOutputStream(
                        new java.util.zip.GZIPOutputStream(new MagicFirst(raw), 65536)))) {
            data.writeInt(targets.size());
            for (String target : targets.keySet()) {
                data.writeUTF(target);
            }
            data.writeInt(entries.size());
            for (Map.Entry<String, Entry> e : entries.entrySet()) {
                data.writeUTF(e.getKey());
                data.writeLong(e.getValue().consumedAt());
                data.writeInt(e.getValue().runs().size());
                for (Run run : e.getValue().runs()) {
                    data.writeLong(run.sourceStart());
                    data.writeInt(targets.get(run.target()));
                    data.writeLong(run.targetStart());
                    data.writeLong(run.length());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the layout map " + out.location(), e);
        }
    }

    /**
     * The map {@link #write} wrote to {@code in}, named by a snapshot of sequence number {@code
     * rebuiltSequence}; throws {@link IllegalStateException} for a file that is not one.
     */
    static LayoutMap read(InputFile in, long rebuiltSequence) {
        try (InputStream raw = in.newStream();
                DataInputStream data = new DataInputStream(new java.io.BufferedInputStream(
                        new java.util.zip.GZIPInputStream(MagicFirst.check(raw, in.location()), 65536)))) {
            List<String> targets = new ArrayList<>();
            int targetCount = data.readInt();
            for (int i = 0; i < targetCount; i++) {
                targets.add(data.readUTF());
            }
            int count = data.readInt();
            Map<String, Entry> ordered = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String file = data.readUTF();
                long consumedAt = data.readLong();
                if (consumedAt == THIS_REBUILD) {
                    consumedAt = rebuiltSequence;
                }
                int runCount = data.readInt();
                List<Run> runs = new ArrayList<>(runCount);
                for (int r = 0; r < runCount; r++) {
                    long sourceStart = data.readLong();
                    String target = targets.get(data.readInt());
                    runs.add(new Run(sourceStart, target, data.readLong(), data.readLong()));
                }
                ordered.put(file, new Entry(consumedAt, runs));
            }
            return new LayoutMap(ordered);
        } catch (EOFException | IndexOutOfBoundsException e) {
            throw new IllegalStateException("truncated floe layout map: " + in.location(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the layout map " + in.location(), e);
        }
    }
}
