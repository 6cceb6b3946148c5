package dev.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a child JVM ({@link CommitForever}) committing to a catalog as fast as it can,
 * at random instants: while it creates the catalog, opens or recovers it, or at any point of a
 * commit. After every kill the catalog opens, holds every commit that returned, and the one in
 * flight wholly or not at all. Every {@value #KILLS_PER_CATALOG} kills start a fresh catalog. A
 * commit counts as acknowledged once the child has written so, to its output or to a file.
 *
 * <p>CI runs {@code -Dkills} (default {@value #DEFAULT_KILLS}); the long run is {@code mvn -pl
 * catalog-adapter test -Dtest=RandomKillTest -Dkills=1000}. The seed is printed; {@code -Dseed=}
 * repeats a run's kill instants as far as the machine's timing allows.
 */
class RandomKillTest {
    private static final int DEFAULT_KILLS = 12;
    private static final int KILLS_PER_CATALOG = 6;

    @TempDir
    Path root;

    @Test
    void everyKillLeavesACatalogThatOpensWithEveryAcknowledgedCommit() throws Exception {
        int kills = Integer.getInteger("kills", DEFAULT_KILLS);
        long seed = Long.getLong("seed", System.nanoTime());
        System.out.println("random kills: " + kills + " kills, seed " + seed);
        Random random = new Random(seed);
        int notOpening = 0;
        int missing = 0;
        long acknowledgedTotal = 0;
        int inFlightThere = 0;
        int linesLost = 0;
        Path file = null;
        int last = -1;
        for (int kill = 0; kill < kills; kill++) {
            if (kill % KILLS_PER_CATALOG == 0) {
                file = root.resolve("catalog-" + kill).resolve("catalog.db");
                last = -1;
            }
            int acknowledged = last;
            try (ChildJvm child = ChildJvm.start(root.resolve("logs"), CommitForever.class, file.toString())) {
                // the instant: some commits in, or (one kill in five) at once, during start-up, creation,
                // open or recovery, then a random pause of up to 3 ms
                int commits = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(40);
                if (commits > 0) {
                    int target = last + commits;
                    child.awaitLine(line -> line.equals("committed " + target), Duration.ofSeconds(60));
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(3000)));
                child.kill();
                int printed = acknowledged;
                for (String line : child.lines()) {
                    if (line.startsWith("committed ")) {
                        printed = Math.max(printed, Integer.parseInt(line.substring(10)));
                    }
                }
                Path acked = CommitForever.ackedFile(file);
                if (Files.exists(acked) && Files.size(acked) >= Long.BYTES) {
                    try (DataInputStream in = new DataInputStream(Files.newInputStream(acked))) {
                        acknowledged = Math.max(acknowledged, (int) in.readLong());
                    }
                }
                linesLost += printed < acknowledged ? 1 : 0;
                acknowledged = Math.max(acknowledged, printed);
            }
            acknowledgedTotal += acknowledged - last;
            CatalogStore store;
            try {
                store = CatalogStore.acquire(file);
            } catch (CatalogFileException e) {
                notOpening++;
                System.out.println("kill " + kill + ": catalog does not open: " + e.getMessage());
                file = root.resolve("catalog-" + kill + "-after-failure").resolve("catalog.db");
                last = -1;
                continue;
            }
            try {
                String pointer = store.snapshot().pointers.get("db.t");
                int found = pointer == null ? -1 : Integer.parseInt(pointer.substring("loc-".length()));
                if (found < acknowledged) {
                    missing += acknowledged - found;
                    System.out.println("kill " + kill + ": commits " + (found + 1) + " to " + acknowledged
                            + " returned but are missing");
                }
                assertThat(found)
                        .as("kill %d (seed %d): at most the commit in flight more", kill, seed)
                        .isLessThanOrEqualTo(acknowledged + 1);
                inFlightThere += found == acknowledged + 1 ? 1 : 0;
                TornCommitTest.assertCommitted(
                        store, found, "kill " + kill + " (seed " + seed + "), " + acknowledged + " returned");
                last = found;
            } finally {
                store.release();
            }
        }
        System.out.println("random kills: " + kills + " kills, seed " + seed + ": " + notOpening
                + " catalogs that do not open, " + missing + " acknowledged commits missing ("
                + acknowledgedTotal + " acknowledged; the commit in flight there after " + inFlightThere
                + " kills; the parent missed the last acknowledgment line after " + linesLost + ")");
        assertThat(notOpening).as("catalogs that do not open (seed %d)", seed).isZero();
        assertThat(missing).as("acknowledged commits missing (seed %d)", seed).isZero();
    }
}
