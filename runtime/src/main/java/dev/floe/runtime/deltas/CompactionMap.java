package dev.floe.runtime.deltas;

import dev.floe.runtime.rows.RollingParquetWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.data.Record;

/**
 * Where a rebuild put each row it rewrote: for every source file it rewrote, runs of (source
 * position, target file, target position, length), one per contiguous stretch of rows that went
 * to one target file in order. A row the rebuild dropped (a delete applied, a prune) is in no run:
 * it cuts the run it would have extended. Files kept as they are map to themselves.
 *
 * <p>This is what makes a rebuild commute with the row deltas that commit while it runs: a
 * position delete of row {@code pos} of a rewritten source lands on row {@code target start + (pos
 * - source start)} of its run's target ({@link #target}), and a source removed whole is its runs
 * ({@link #runsOf}). A rebuild's rows stream in file order, so a source's runs are recorded in
 * position order and looked up by binary search.
 *
 * <p>Memory: 20 bytes a run in primitive arrays, plus each file's location once. A rewrite of files
 * without deletes has about one run per source file and per target file it spans; every deleted or
 * pruned row can add one more. A rebuild of 10 million rows with 1 million scattered deletes holds
 * about 20 MB.
 */
public final class CompactionMap {
    /**
     * The target of the runs of rows a prune dropped: recorded so that a version rewritten onto the
     * new layout loses them too ({@code LayoutMap}), never a file; a delta against such a row finds it
     * gone, as one against a deleted row does.
     */
    public static final String PRUNED = "floe:pruned";

    /** A contiguous stretch of rows: {@code length} rows from {@code sourceStart} of a source went to {@code targetStart} of {@code target}. */
    public record Run(long sourceStart, String target, long targetStart, long length) {}

    /** Where one source row went. */
    record Position(String file, long position) {}

    private final List<String> targets = new ArrayList<>();
    private final Map<String, Integer> targetIndex = new HashMap<>();
    private final Map<String, SourceRuns> sources = new HashMap<>();
    private final Set<String> kept = new HashSet<>();
    /** Sources rewritten without a record of where their rows went (rows routed to an earlier spec's partitions). */
    private final Set<String> unmapped = new HashSet<>();

    private Set<String> rewritten;
    private String lastSource;
    private SourceRuns lastRuns;
    private String lastTarget;
    private int lastTargetIndex;

    /** {@code file} is carried as it is: it maps to itself. */
    public void keep(String file) {
        kept.add(file);
    }

    /** {@code file} is rewritten: it has runs from here on (none, if every row of it is dropped). */
    public void rewriting(String file) {
        sources.computeIfAbsent(file, f -> new SourceRuns());
    }

    /** {@code file} is rewritten, but where its rows go is not recorded. */
    public void rewritingUnmapped(String file) {
        unmapped.add(file);
    }

    /** Row {@code sourcePos} of {@code source} went to row {@code targetPos} of {@code target}. */
    public void placed(String source, long sourcePos, String target, long targetPos) {
        // rows come file after file, each file's location the same string: look up only on a change
        if (source != lastSource) {
            lastRuns = sources.computeIfAbsent(source, f -> new SourceRuns());
            lastSource = source;
        }
        if (target != lastTarget) {
            lastTargetIndex = targetIndex.computeIfAbsent(target, f -> {
                targets.add(f);
                return targets.size() - 1;
            });
            lastTarget = target;
        }
        lastRuns.placed(sourcePos, lastTargetIndex, targetPos);
    }

    /**
     * Rows {@code [0, rows)} of {@code source} went, in order, to rows {@code [targetStart, targetStart
     * + rows)} of {@code target}: a file whose row groups were copied whole.
     */
    public void copied(String source, long rows, String target, long targetStart) {
        rewriting(source);
        // one call per run of at most Integer.MAX_VALUE rows: each extends the run the first began
        for (long done = 0; done < rows; ) {
            placed(source, done, target, targetStart + done); // a run of one row, looked up and started
            long n = Math.min(rows - done, Integer.MAX_VALUE);
            lastRuns.length[lastRuns.size - 1] += (int) (n - 1);
            done += n;
        }
    }

    /**
     * Takes in every run of {@code other}, a map of other sources (a major rebuild's, installed by
     * this rebuild): its sources are rewritten here too, their rows where {@code other} put them.
     */
    public void absorb(CompactionMap other) {
        other.unmapped.forEach(this::rewritingUnmapped);
        for (String source : other.sources.keySet()) {
            if (sources.containsKey(source) || kept.contains(source)) {
                throw new IllegalArgumentException(source + " is in both maps");
            }
            rewriting(source);
            for (Run run : other.allRunsOf(source)) {
                placed(source, run.sourceStart(), run.target(), run.targetStart());
                lastRuns.length[lastRuns.size - 1] += (int) (run.length() - 1);
            }
        }
    }

    /**
     * The rows placed in {@code from} (a file written only to be copied on, then deleted) went on to
     * {@code to}, {@code offset} rows in: every run into the one now goes into the other.
     */
    public void retarget(String from, String to, long offset) {
        Integer fromIndex = targetIndex.get(from);
        if (fromIndex == null) {
            return; // no row went there
        }
        int toIndex = targetIndex.computeIfAbsent(to, f -> {
            targets.add(f);
            return targets.size() - 1;
        });
        for (SourceRuns runs : sources.values()) {
            for (int i = 0; i < runs.size; i++) {
                if (runs.target[i] == fromIndex) {
                    runs.target[i] = toIndex;
                    runs.targetStart[i] += offset;
                }
            }
        }
        lastTarget = null;
    }

    /** Row {@code sourcePos} of {@code source} was dropped by the prune. */
    public void pruned(String source, long sourcePos) {
        placed(source, sourcePos, PRUNED, sourcePos);
    }

    /**
     * Records where a rebuild's rows go, each carrying its position at {@code positionAt} and its
     * file's location right after it.
     */
    public RollingParquetWriter.Placement placement(int positionAt) {
        return new RollingParquetWriter.Placement() {
            @Override
            public void placed(Record row, String location, long position) {
                CompactionMap.this.placed(
                        row.get(positionAt + 1).toString(), (Long) row.get(positionAt), location, position);
            }

            @Override
            public void pruned(Record row) {
                CompactionMap.this.pruned(row.get(positionAt + 1).toString(), (Long) row.get(positionAt));
            }
        };
    }

    /** Whether {@code file} was kept as it is: it maps to itself. */
    public boolean isKept(String file) {
        return kept.contains(file);
    }

    /** Whether {@code file} was rewritten with a record of where its rows went. */
    public boolean isMapped(String file) {
        return sources.containsKey(file);
    }

    /** Whether {@code file} was rewritten without one: a delta against it cannot be rebased. */
    boolean isUnmapped(String file) {
        return unmapped.contains(file);
    }

    /** Where row {@code pos} of the rewritten {@code source} went; null if the rebuild dropped it. */
    Position target(String source, long pos) {
        SourceRuns runs = sources.get(source);
        Position position = runs == null ? null : runs.target(pos, targets);
        return position == null || PRUNED.equals(position.file()) ? null : position;
    }

    /** Every run of {@code source} into a file, in source order; empty if none of its rows was written. */
    public List<Run> runsOf(String source) {
        return allRunsOf(source).stream()
                .filter(r -> !PRUNED.equals(r.target()))
                .toList();
    }

    /** Every run of {@code source}, in source order, those of the rows the prune dropped ({@link #PRUNED}) too. */
    public List<Run> allRunsOf(String source) {
        SourceRuns runs = sources.get(source);
        return runs == null ? List.of() : runs.all(targets);
    }

    /** The rewritten sources, mapped or not: files whose location the rebuilt table no longer holds. */
    public Set<String> rewritten() {
        if (rewritten == null || rewritten.size() != sources.size() + unmapped.size()) {
            Set<String> all = new HashSet<>(sources.keySet());
            all.addAll(unmapped);
            rewritten = java.util.Collections.unmodifiableSet(all);
        }
        return rewritten;
    }

    int runCount() {
        return sources.values().stream().mapToInt(r -> r.size).sum();
    }

    /** The runs of one source, in primitive arrays sorted by source position. */
    private static final class SourceRuns {
        long[] sourceStart = new long[4];
        long[] targetStart = new long[4];
        int[] target = new int[4];
        int[] length = new int[4];
        int size;

        public void placed(long sourcePos, int t, long targetPos) {
            int last = size - 1;
            if (last >= 0
                    && target[last] == t
                    && length[last] < Integer.MAX_VALUE
                    && sourceStart[last] + length[last] == sourcePos
                    && targetStart[last] + length[last] == targetPos) {
                length[last] += 1;
                return;
            }
            if (last >= 0 && sourcePos < sourceStart[last] + length[last]) {
                throw new IllegalStateException("rows of a source must be placed in position order: " + sourcePos
                        + " after " + (sourceStart[last] + length[last] - 1));
            }
            if (size == sourceStart.length) {
                int grown = size * 2;
                sourceStart = Arrays.copyOf(sourceStart, grown);
                targetStart = Arrays.copyOf(targetStart, grown);
                target = Arrays.copyOf(target, grown);
                length = Arrays.copyOf(length, grown);
            }
            sourceStart[size] = sourcePos;
            targetStart[size] = targetPos;
            target[size] = t;
            length[size] = 1;
            size += 1;
        }

        Position target(long pos, List<String> targets) {
            int low = 0;
            int high = size - 1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                if (sourceStart[mid] > pos) {
                    high = mid - 1;
                } else if (sourceStart[mid] + length[mid] <= pos) {
                    low = mid + 1;
                } else {
                    return new Position(targets.get(target[mid]), targetStart[mid] + (pos - sourceStart[mid]));
                }
            }
            return null;
        }

        List<Run> all(List<String> targets) {
            List<Run> runs = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                runs.add(new Run(sourceStart[i], targets.get(target[i]), targetStart[i], length[i]));
            }
            return runs;
        }
    }
}
