package dev.floe.runtime;

import dev.floe.catalog.MapDbCatalog;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What runs when the runtime opens a catalog: rebuilds a previous process left unfinished are
 * undone (scratch table dropped, the files it wrote deleted), then reclaim jobs that are due run.
 */
public final class Recovery {
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  private Recovery() {}

  /** What recovery cleaned up. */
  public record Result(List<TableIdentifier> scratchTablesDiscarded, Reclaimer.Result reclaimed) {}

  public static Result run(MapDbCatalog catalog, Instant now) {
    List<TableIdentifier> discarded = new ArrayList<>();
    // The journal is written before a scratch table exists and cleared in the swap's own
    // transaction, so it names every unfinished rebuild; tables are never judged by their names.
    for (RebuildJournal journal : RebuildJournal.unfinished(catalog)) {
      ScratchTable.discard(catalog, journal);
      discarded.add(journal.scratch());
    }
    Reclaimer.Result reclaimed = new Reclaimer(catalog).runDue(now);
    if (!discarded.isEmpty()) {
      LOG.info("floe: recovery discarded unfinished rebuilds {}", discarded);
    }
    return new Result(discarded, reclaimed);
  }

  /**
   * The scratch tables of rebuilds a previous process left unfinished, keyed by scratch table,
   * valued by the live table each was rebuilding: what {@link #run} would discard. Reads only.
   */
  public static java.util.Map<TableIdentifier, TableIdentifier> unfinishedRebuilds(MapDbCatalog catalog) {
    java.util.Map<TableIdentifier, TableIdentifier> unfinished = new java.util.LinkedHashMap<>();
    for (RebuildJournal journal : RebuildJournal.unfinished(catalog)) {
      unfinished.put(journal.scratch(), journal.live());
    }
    return unfinished;
  }

}
