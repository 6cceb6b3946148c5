package dev.floe.agent.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * What {@link CliIT} reads of a table of a catalog other than floe's own, through an instance of its
 * own built from the same properties file, closed before the next process runs (a SQLite catalog
 * admits one instance at a time).
 */
final class SharedTables {
    private SharedTables() {}

    /** A table as a test compares it: its UUID, snapshots, every row (all fields, by id), its data files. */
    record Facts(String uuid, int snapshots, List<List<Object>> rows, Set<String> dataFiles) {}

    static Facts facts(Path properties, String name, TableIdentifier identifier) {
        return with(properties, name, catalog -> {
            Table table = catalog.loadTable(identifier);
            String uuid = ((HasTableOperations) table).operations().current().uuid();
            List<List<Object>> rows = new ArrayList<>();
            try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
                for (Record record : records) {
                    List<Object> values = new ArrayList<>();
                    for (int i = 0; i < record.size(); i++) {
                        values.add(record.get(i));
                    }
                    rows.add(values);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            rows.sort(Comparator.comparing(row -> (Long) row.get(0)));
            Set<String> files = new TreeSet<>();
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                tasks.forEach(task -> files.add(local(task.file().location())));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            int snapshots = 0;
            for (Object ignored : table.snapshots()) {
                snapshots++;
            }
            return new Facts(uuid, snapshots, rows, files);
        });
    }

    /** Runs {@code read} on an instance of the catalog {@code properties} names, then closes it. */
    static <T> T with(Path properties, String name, Function<Catalog, T> read) {
        Properties loaded = new Properties();
        try (InputStream in = Files.newInputStream(properties)) {
            loaded.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> props = new LinkedHashMap<>();
        loaded.stringPropertyNames().forEach(key -> props.put(key, loaded.getProperty(key)));
        Catalog catalog = CatalogUtil.buildIcebergCatalog(name, props, new Configuration());
        try {
            return read.apply(catalog);
        } finally {
            if (catalog instanceof AutoCloseable) {
                try {
                    ((AutoCloseable) catalog).close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** The Parquet data files under {@code warehouse}, as plain local paths. */
    static Set<String> dataFilesOnDisk(Path warehouse) {
        try (Stream<Path> files = Files.walk(warehouse)) {
            return files.filter(Files::isRegularFile)
                    .map(Path::toString)
                    .filter(p -> p.contains("/data/") && p.endsWith(".parquet"))
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String local(String location) {
        return location.replaceFirst("^file:(//)?", "");
    }
}
