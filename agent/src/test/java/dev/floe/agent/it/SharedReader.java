package dev.floe.agent.it;

import dev.floe.samples.IngestSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * A reader process that knows nothing of floe: it loads a table afresh from its catalog and reads
 * every id, over and over, until a stop file appears. After each read it prints {@code read
 * rows=<n> low=<ids below the split> high=<ids at or above it> duplicates=<n>}; a read that finds
 * fewer rows than the one before prints {@code reader saw fewer rows}; at the end one line {@code
 * RESULT reads= maxRows= decreases= duplicates= errors=}.
 *
 * <p>Arguments: catalog properties file, catalog name, table, split id, stop file.
 */
public final class SharedReader {
    private SharedReader() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> properties = IngestSettings.catalogProperties(Path.of(args[0]));
        Catalog catalog = CatalogUtil.loadCatalog(
                properties.get("catalog-impl"), args[1], properties, IngestSettings.nioHadoopConf());
        TableIdentifier identifier = TableIdentifier.parse(args[2]);
        long split = Long.parseLong(args[3]);
        Path stop = Path.of(args[4]);
        long reads = 0;
        long maxRows = 0;
        long last = 0;
        long decreases = 0;
        long duplicates = 0;
        long errors = 0;
        while (!Files.exists(stop)) {
            try {
                Table table = catalog.loadTable(identifier);
                Set<Long> ids = new HashSet<>();
                long rows = 0;
                long high = 0;
                try (CloseableIterable<Record> records =
                        IcebergGenerics.read(table).select("id").build()) {
                    for (Record record : records) {
                        long id = (Long) record.getField("id");
                        rows++;
                        ids.add(id);
                        if (id >= split) {
                            high++;
                        }
                    }
                }
                reads++;
                duplicates += rows - ids.size();
                if (rows < last) {
                    decreases++;
                    System.out.println("reader saw fewer rows: " + rows + " after " + last);
                }
                last = rows;
                maxRows = Math.max(maxRows, rows);
                System.out.println("read rows=" + rows + " low=" + (rows - high) + " high=" + high + " duplicates="
                        + (rows - ids.size()));
                // a reader that queries often, not one that takes a core from the writers
                Thread.sleep(50);
            } catch (Exception e) {
                errors++;
                System.out.println("reader error: " + e);
                e.printStackTrace(System.out);
            }
        }
        System.out.println("RESULT reads=" + reads + " maxRows=" + maxRows + " decreases=" + decreases + " duplicates="
                + duplicates + " errors=" + errors);
        ((AutoCloseable) catalog).close();
    }
}
