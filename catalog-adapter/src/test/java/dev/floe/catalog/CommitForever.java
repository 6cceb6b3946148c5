package dev.floe.catalog;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Child JVM of {@link RandomKillTest}: opens (or creates) the catalog file given as the only
 * argument, prints {@code opened <last commit>}, then makes commits {@link HaltInCommit#commit} after
 * the last one it finds, forever, printing {@code committed <n>} after each has returned, and
 * writing n to {@code <file>.acked} too: what a killed process wrote to a file is kept by the
 * kernel, while the last lines it wrote to a pipe are not always read by the parent.
 */
public final class CommitForever {
    private CommitForever() {}

    public static void main(String[] args) throws IOException {
        Path file = Paths.get(args[0]);
        CatalogStore store = CatalogStore.acquire(file);
        RandomAccessFile acked = new RandomAccessFile(ackedFile(file).toFile(), "rw");
        String pointer = store.snapshot().pointers.get("db.t");
        int last = pointer == null ? -1 : Integer.parseInt(pointer.substring("loc-".length()));
        System.out.println("opened " + last);
        System.out.flush();
        for (int n = last + 1; ; n++) {
            HaltInCommit.commit(store, n);
            acked.seek(0);
            acked.writeLong(n);
            System.out.println("committed " + n);
            System.out.flush();
        }
    }

    static Path ackedFile(Path catalogFile) {
        return catalogFile.resolveSibling(catalogFile.getFileName() + ".acked");
    }
}
