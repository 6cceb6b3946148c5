package dev.floe.samples;

import java.util.Arrays;
import java.util.Random;

/**
 * The keys each commit of the upsert host writes: {@code perCommit} distinct keys of {@code [0,
 * keys)}, drawn anew for every commit from a seeded {@link Random}, so that some are new and some
 * update keys earlier commits wrote. The same seed gives the same keys, so a reader that knows the
 * seed knows which version of each key must be in the table.
 */
public final class UpsertKeys {
    private final int[] order;
    private final int perCommit;
    private final Random random;

    public UpsertKeys(int keys, int perCommit, long seed) {
        if (perCommit < 1 || perCommit > keys) {
            throw new IllegalArgumentException("perCommit " + perCommit + " is not in [1, " + keys + "]");
        }
        this.order = new int[keys];
        for (int k = 0; k < keys; k++) {
            order[k] = k;
        }
        this.perCommit = perCommit;
        this.random = new Random(seed);
    }

    /** The keys of the next commit: distinct, ascending. */
    public int[] next() {
        // a partial Fisher-Yates shuffle: the first perCommit places get a uniform random subset
        for (int i = 0; i < perCommit; i++) {
            int j = i + random.nextInt(order.length - i);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        int[] chosen = Arrays.copyOf(order, perCommit);
        Arrays.sort(chosen);
        return chosen;
    }

    /**
     * The version of each key of {@code [0, keys)} after commits {@code 1 .. commits} (a key's version
     * is the number of the last commit that wrote it; 0: none did).
     */
    public static long[] lastVersions(int keys, int perCommit, long seed, int commits) {
        UpsertKeys chooser = new UpsertKeys(keys, perCommit, seed);
        long[] versions = new long[keys];
        for (int commit = 1; commit <= commits; commit++) {
            for (int key : chooser.next()) {
                versions[key] = commit;
            }
        }
        return versions;
    }
}
