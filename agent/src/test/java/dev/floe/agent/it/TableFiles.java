package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.FloeStateFile;
import dev.floe.runtime.guard.SharedCatalog;
import dev.floe.runtime.seam.FloeState;
import dev.floe.runtime.seam.IcebergRebuildCatalog;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.upkeep.Recovery;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.CloseableIterable;

/** The files of a table on the local disk, and those its metadata references, as local paths. */
final class TableFiles {
    private TableFiles() {}

    /**
     * After the host with the agent exited: runs what floe's reclaim had not run yet (the last grace
     * window) from the state file, as the next start would, then checks that no data file, manifest
     * or manifest list under {@code root} is left that the table does not reference, and of metadata
     * files only those its log forgot since floe's last trim ({@code metadataVersions} commits at
     * most), each older than the log.
     *
     * @param name and {@code properties}: the catalog as the host initialised it (floe's records of
     *     its tables are kept under that)
     */
    static void assertNoLitterAfterReclaim(
            Catalog catalog,
            String name,
            Map<String, String> properties,
            FloeStateFile state,
            Table table,
            Path root,
            int metadataVersions)
            throws IOException {
        String key = SharedCatalog.of(catalog, name, properties, null).key();
        FloeState records = FloeState.of(state).scoped(key);
        Recovery.run(
                new IcebergRebuildCatalog(catalog, key, records), Instant.now().plus(Duration.ofHours(1)));
        assertThat(records.entries(ReclaimJob.SECTION)).as("reclaim jobs left").isEmpty();
        assertThat(records.entries("floe.rebuild")).as("unfinished rebuilds").isEmpty();

        table.refresh();
        Set<String> unreferenced = new TreeSet<>(onDisk(root));
        unreferenced.removeAll(referenced(table));
        unreferenced.removeIf(f -> f.endsWith("/version-hint.text")); // HadoopCatalog's pointer
        assertThat(unreferenced)
                .as("data files, manifests and manifest lists no metadata references")
                .allMatch(f -> f.endsWith(".metadata.json"));
        long oldestLogged = ((HasTableOperations) table)
                .operations().current().previousFiles().stream()
                        .mapToLong(e -> version(e.file()))
                        .min()
                        .orElse(Long.MAX_VALUE);
        // the trim runs every metadataVersions host commits on floe's thread; when that thread is in
        // a rebuild, the commits meanwhile wait for the trim after it, and a rebuild's and a
        // manifest merge's own commits forget a file each too
        assertThat(unreferenced)
                .as("metadata files the log forgot since the last trim, each older than the log")
                .hasSizeLessThanOrEqualTo(2 * metadataVersions)
                .allMatch(f -> version(f) < oldestLogged);
    }

    /** The version a metadata file's name starts with: {@code 00012-<uuid>.metadata.json}, {@code v12.metadata.json}. */
    static long version(String file) {
        String name = file.substring(file.lastIndexOf('/') + 1).replaceFirst("^v", "");
        return Long.parseLong(name.replaceFirst("[^0-9].*$", ""));
    }

    /**
     * Every file the table's current metadata references: the current metadata file and its log,
     * each snapshot's manifest list, manifests, data and delete files.
     */
    static Set<String> referenced(Table table) throws IOException {
        Set<String> files = new HashSet<>();
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        files.add(metadata.metadataFileLocation());
        metadata.previousFiles().forEach(e -> files.add(e.file()));
        Set<String> manifests = new HashSet<>();
        for (Snapshot snapshot : metadata.snapshots()) {
            files.add(snapshot.manifestListLocation());
            if (snapshot.summary() != null && snapshot.summary().get("floe.layout-map") != null) {
                files.add(snapshot.summary().get("floe.layout-map")); // where the next rebuild finds its map
            }
            for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                if (manifests.add(manifest.path())) {
                    files.add(manifest.path());
                    try (CloseableIterable<? extends ContentFile<?>> entries =
                            manifest.content() == ManifestContent.DATA
                                    ? ManifestFiles.read(manifest, table.io(), metadata.specsById())
                                    : ManifestFiles.readDeleteManifest(manifest, table.io(), metadata.specsById())) {
                        entries.forEach(f -> files.add(f.location()));
                    }
                }
            }
        }
        return files.stream().map(TableFiles::localPath).collect(Collectors.toSet());
    }

    /** A location as a local path: {@code file:/a/b} is {@code /a/b}. */
    static String localPath(String location) {
        return location.startsWith("file:") ? URI.create(location).getPath() : location;
    }

    /** Every regular file under {@code root}, as absolute paths. */
    static Set<String> onDisk(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.filter(Files::isRegularFile)
                    .map(p -> p.toAbsolutePath().toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
