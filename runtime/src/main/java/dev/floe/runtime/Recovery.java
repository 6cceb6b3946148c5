package dev.floe.runtime;

import dev.floe.catalog.MapDbCatalog;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.catalog.Namespace;
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
    Set<TableIdentifier> journaled = new HashSet<>();
    for (RebuildJournal journal : RebuildJournal.unfinished(catalog)) {
      journaled.add(journal.scratch());
      ScratchTable.discard(catalog, journal);
      discarded.add(journal.scratch());
    }
    for (TableIdentifier table : allTables(catalog, Namespace.empty())) {
      if (ScratchTable.isScratchName(table) && !journaled.contains(table)) {
        ScratchTable.discard(catalog, new RebuildJournal(catalog, table, table));
        discarded.add(table);
      }
    }
    Reclaimer.Result reclaimed = new Reclaimer(catalog).runDue(now);
    if (!discarded.isEmpty()) {
      LOG.info("floe: recovery discarded unfinished rebuilds {}", discarded);
    }
    return new Result(discarded, reclaimed);
  }

  private static List<TableIdentifier> allTables(MapDbCatalog catalog, Namespace namespace) {
    List<TableIdentifier> tables = new ArrayList<>(catalog.listTables(namespace));
    for (Namespace child : catalog.listNamespaces(namespace)) {
      tables.addAll(allTables(catalog, child));
    }
    return tables;
  }
}
