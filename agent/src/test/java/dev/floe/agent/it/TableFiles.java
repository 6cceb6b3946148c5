package dev.floe.agent.it;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
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
import org.apache.iceberg.io.CloseableIterable;

/** The files of a table on the local disk, and those its metadata references, as local paths. */
final class TableFiles {
    private TableFiles() {}

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
