package dev.floe.catalog;

import java.nio.file.Paths;

/**
 * Child JVM of {@link RandomKillTest}: opens (or creates) the catalog file given as the only
 * argument, prints {@code opened <last commit>}, then makes commits {@link HaltInCommit#commit} after
 * the last one it finds, forever, printing {@code committed <n>} after each has returned.
 */
public final class CommitForever {
  private CommitForever() {}

  public static void main(String[] args) {
    CatalogStore store = CatalogStore.acquire(Paths.get(args[0]));
    String pointer = store.snapshot().pointers.get("db.t");
    int last = pointer == null ? -1 : Integer.parseInt(pointer.substring("loc-".length()));
    System.out.println("opened " + last);
    System.out.flush();
    for (int n = last + 1; ; n++) {
      HaltInCommit.commit(store, n);
      System.out.println("committed " + n);
      System.out.flush();
    }
  }
}
