package dev.floe.agent;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.catalog.MapDbTableOperations;
import dev.floe.runtime.Guard;
import dev.floe.runtime.GuardSettings;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;

/**
 * The one place the advice calls: plain static methods that take {@code Object}s, check what
 * they were given, and hand off to the runtime's {@link Guard}. The guard is created on first use,
 * on the host's first commit or catalog, so nothing of the host (its logging, its Iceberg) is
 * touched while the JVM starts.
 */
public final class Hooks {
  private static volatile GuardSettings settings;
  private static volatile Guard guard;

  private Hooks() {}

  static void install(GuardSettings configured) {
    settings = configured;
  }

  static Guard guard() {
    Guard current = guard;
    if (current == null && settings != null) {
      synchronized (Hooks.class) {
        current = guard;
        if (current == null) {
          current = new Guard(settings);
          guard = current;
        }
      }
    }
    return current;
  }

  /**
   * Before {@code BaseMetastoreTableOperations.commit}: 0 when no gate was taken (not guarded, or
   * anything failed), else 1 + the nanoseconds waited. 0 is also what suppressed advice returns,
   * so a failure here can never make the exit advice release a gate it does not hold.
   */
  public static long beforeCommit(Object ops) {
    try {
      if (!(ops instanceof MapDbTableOperations)) {
        return 0;
      }
      Guard current = guard();
      long waited = current == null ? -1 : current.beforeCommit(((MapDbTableOperations) ops).identifier());
      return waited < 0 ? 0 : waited + 1;
    } catch (Throwable e) {
      return 0;
    }
  }

  /**
   * Before {@code SnapshotProducer.commit()}: like {@link #beforeCommit}, for the whole operation
   * (its apply and every retry of its commit).
   */
  public static long beforeOperation(Object ops) {
    try {
      if (!(ops instanceof MapDbTableOperations)) {
        return 0;
      }
      Guard current = guard();
      long waited = current == null ? -1 : current.beforeOperation(((MapDbTableOperations) ops).identifier());
      return waited < 0 ? 0 : waited + 1;
    } catch (Throwable e) {
      return 0;
    }
  }

  /** After {@code SnapshotProducer.commit()}, whatever its outcome. */
  public static void afterOperation(Object ops, long entered) {
    if (entered > 0 && ops instanceof MapDbTableOperations) {
      guard().afterOperation(((MapDbTableOperations) ops).identifier(), entered - 1);
    }
  }

  /** After {@code BaseMetastoreTableOperations.commit}, whatever its outcome. */
  public static void afterCommit(Object ops, Object metadata, long entered, Throwable thrown) {
    if (entered <= 0 || !(ops instanceof MapDbTableOperations)) {
      return;
    }
    MapDbTableOperations mapDbOps = (MapDbTableOperations) ops;
    TableMetadata committed = metadata instanceof TableMetadata ? (TableMetadata) metadata : null;
    guard().afterCommit(mapDbOps.catalog(), mapDbOps.identifier(), committed, thrown == null, entered - 1);
  }

  /** After a MapDbCatalog hands the host a table (load, create, register): track the handle. */
  public static void tableLoaded(Object table) {
    if (table instanceof HasTableOperations
        && ((HasTableOperations) table).operations() instanceof MapDbTableOperations) {
      Guard current = guard();
      if (current != null) {
        MapDbTableOperations ops = (MapDbTableOperations) ((HasTableOperations) table).operations();
        current.tableLoaded(ops.identifier(), (Table) table);
      }
    }
  }

  /** After {@code MapDbCatalog.initialize}. */
  public static void catalogOpened(Object catalog) {
    Guard current = guard();
    if (current != null && catalog instanceof MapDbCatalog) {
      current.catalogOpened((MapDbCatalog) catalog);
    }
  }
}
