package dev.floe.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A run's series, one CSV row per commit: commit (1-based, in order of completion), endEpochMs,
 * latencyMs, expireMs (maintained mode), snapshots (the committing handle's, after the commit) and
 * metadataBytes (on disk, sampled; empty when not sampled). {@link BenchIngest} writes it, the
 * harness reads it.
 */
final class SeriesCsv implements AutoCloseable {
    static final String HEADER = "commit,endEpochMs,latencyMs,expireMs,snapshots,metadataBytes";

    private final BufferedWriter out;
    private boolean closed;

    SeriesCsv(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        out.write(HEADER + "\n");
    }

    /** One commit's row; {@code metadataBytes < 0}: not sampled. */
    synchronized void row(
            int commit, long endMillis, long latencyNanos, long expireNanos, int snapshots, long metadataBytes)
            throws IOException {
        out.write(String.format(
                Locale.ROOT,
                "%d,%d,%.3f,%.3f,%d,%s%n",
                commit,
                endMillis,
                latencyNanos / 1e6,
                expireNanos / 1e6,
                snapshots,
                metadataBytes < 0 ? "" : Long.toString(metadataBytes)));
    }

    @Override
    public synchronized void close() throws IOException {
        if (!closed) {
            closed = true;
            out.close();
        }
    }

    /** The rows of a series file: commit, endEpochMs, latencyMs, expireMs, snapshots, metadataBytes (-1: none). */
    static List<double[]> read(Path file) throws IOException {
        List<double[]> rows = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",", -1);
            if (f.length < 6) {
                continue;
            }
            rows.add(new double[] {
                Double.parseDouble(f[0]),
                Double.parseDouble(f[1]),
                Double.parseDouble(f[2]),
                Double.parseDouble(f[3]),
                Double.parseDouble(f[4]),
                f[5].isEmpty() ? -1 : Double.parseDouble(f[5])
            });
        }
        return rows;
    }
}
