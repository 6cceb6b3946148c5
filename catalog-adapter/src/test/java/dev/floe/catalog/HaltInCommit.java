package dev.floe.catalog;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

/**
 * Child JVM of {@link TornCommitTest}: halts before the k-th file write of one catalog step, with
 * {@link WriteHalter}. Arguments: the catalog file, the step ({@code create}: creating the catalog
 * under its temporary name, up to the first write to it under its own; {@code commit}: MapDB's
 * commit of the fourth commit of a new catalog) and k. Prints {@code committed <n>} after each
 * commit returns; if the step ends before its k-th write, prints {@code writes
 * <count>} and halts all the same, without closing the catalog.
 */
public final class HaltInCommit {
    private HaltInCommit() {}

    public static void main(String[] args) {
        WriteHalter.install();
        Path file = Paths.get(args[0]);
        String step = args[1];
        int k = Integer.parseInt(args[2]);
        if (step.equals("create")) {
            WriteHalter.arm(k, false);
        }
        CatalogStore store = CatalogStore.acquire(file);
        int commits = step.equals("create") ? 1 : 4;
        for (int n = 0; n < commits; n++) {
            if (step.equals("commit") && n == commits - 1) {
                WriteHalter.arm(k, true);
            }
            commit(store, n);
            System.out.println("committed " + n);
            System.out.flush();
        }
        System.out.println("writes " + WriteHalter.count());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    /**
     * Commit {@code n}: repoints {@code db.t} at {@code loc-n} and logs it, records {@code job-n},
     * and from the fourth commit on also forgets the oldest job, points {@code db.u} and adds a
     * namespace: changes to every map of the catalog, in one transaction.
     */
    static void commit(CatalogStore store, int n) {
        store.write("commit " + n, tx -> {
            tx.putPointer("db.t", "loc-" + n);
            tx.appendLog("db.t", "loc-" + n);
            tx.putSection("jobs", "job-" + n, "due-" + n);
            if (n >= 3) {
                tx.removeSection("jobs", "job-" + (n - 3));
                tx.putPointer("db.u", "u-" + n);
                tx.putNamespace("ns" + n, Map.of("owner", "commit-" + n));
            }
            return null;
        });
    }
}
