package dev.floe.runtime.seam;

import java.time.Instant;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A durable promise to delete what a swap retired, once the grace window has passed.
 *
 * <p>A job is recorded in the swap's own transaction as the list of retired metadata files
 * ({@code expanded == false}): cheap to write, and enough to find everything the old table
 * referenced. Soon after, it is expanded into the full list of files to delete (metadata files,
 * manifest lists, manifests, data and delete files the live table no longer references), so that
 * a reclaim interrupted half-way can still finish.
 *
 * @param rebuilt the metadata file the swap made live: nothing it references is ever deleted, even
 *     if the table was renamed or dropped since
 * @param paths retired metadata files when not expanded; every file to delete once expanded
 */
public record ReclaimJob(
        String id, TableIdentifier table, Instant due, String rebuilt, boolean expanded, List<String> paths) {
    /** The catalog section reclaim jobs live in. */
    public static final String SECTION = "floe.reclaim";

    private static final String HEADER = "floe-reclaim-job 1";

    public ReclaimJob {
        paths = List.copyOf(paths);
    }

    public boolean isDue(Instant now) {
        return !due.isAfter(now);
    }

    public ReclaimJob expandedTo(List<String> files) {
        return new ReclaimJob(id, table, due, rebuilt, true, files);
    }

    public String encode() {
        DurableRecords.Writer record = new DurableRecords.Writer(HEADER)
                .field("table", DurableRecords.identifier(table))
                .field("due", due.toEpochMilli())
                .field("rebuilt", rebuilt)
                .field("expanded", expanded);
        paths.forEach(path -> record.field("path", path));
        return record.toString();
    }

    public static ReclaimJob decode(String id, String encoded) {
        DurableRecords.Reader record = new DurableRecords.Reader(encoded, HEADER);
        return new ReclaimJob(
                id,
                DurableRecords.identifier(record.one("table")),
                Instant.ofEpochMilli(Long.parseLong(record.one("due"))),
                record.one("rebuilt"),
                Boolean.parseBoolean(record.one("expanded")),
                record.all("path"));
    }
}
