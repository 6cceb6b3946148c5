package dev.floe.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The rebuilds of a run placed in time, and the commits that ran during each: a rebuild ends where
 * floe's {@code floe: rebuilt} line was logged (less its reclaim phase, if the line has one) and
 * began its phases' total before that; a commit ran during it when the commit began before it ended
 * and ended after it began. Commits come from a series: {@code commit, endEpochMs, latencyMs}.
 */
final class RebuildWindows {
    /** One rebuild: from its first phase to the end of its swap, and its phases as logged. */
    record Window(int number, long startMs, long endMs, String phases) {
        boolean ran(Commit c) {
            return c.endMs() - c.latencyMs() <= endMs && c.endMs() >= startMs;
        }
    }

    /** One commit of the series. */
    record Commit(int number, double endMs, double latencyMs) {}

    /** The worst commit during one rebuild (none: {@code commits} 0). */
    record During(Window window, int commits, Commit worst) {}

    private RebuildWindows() {}

    /** The windows of floe's rebuild lines, each line's time of day taken on the day nearest {@code near}. */
    static List<Window> of(List<String> rebuildLines, long near) {
        List<Window> windows = new ArrayList<>();
        for (String line : rebuildLines) {
            RebuildReport report = RebuildReport.parse(line);
            long reclaim = report.phases().getOrDefault("reclaim", 0L);
            long end = StallBench.logEpochMillis(line, near) - reclaim;
            windows.add(new Window(
                    windows.size() + 1,
                    end - (report.totalMs() - reclaim),
                    end,
                    report.phases().toString()));
        }
        return windows;
    }

    /** The latencies of the commits past the first {@code warmUp} that ran outside every window. */
    static List<Double> outside(List<Window> windows, List<Commit> commits, int warmUp) {
        List<Double> latencies = new ArrayList<>();
        for (Commit c : commits) {
            if (c.number() > warmUp && windows.stream().noneMatch(w -> w.ran(c))) {
                latencies.add(c.latencyMs());
            }
        }
        return latencies;
    }

    /** For each window, the commits during it and the worst of them. */
    static List<During> during(List<Window> windows, List<Commit> commits) {
        List<During> all = new ArrayList<>();
        for (Window w : windows) {
            int count = 0;
            Commit worst = null;
            for (Commit c : commits) {
                if (w.ran(c)) {
                    count++;
                    if (worst == null || c.latencyMs() > worst.latencyMs()) {
                        worst = c;
                    }
                }
            }
            all.add(new During(w, count, worst));
        }
        return all;
    }

    /** A series file: a header, then {@code commit,endEpochMs,latencyMs} per row. */
    static List<Commit> readSeries(Path file) throws IOException {
        List<Commit> commits = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",");
            if (f.length >= 3) {
                commits.add(new Commit(Integer.parseInt(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])));
            }
        }
        return commits;
    }
}
