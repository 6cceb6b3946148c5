package dev.floe.runtime.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.io.FileIO;

/**
 * The data files a snapshot lists, by location: what a rebuild checks against its layout to tell a
 * kept snapshot that is on it already from one to rewrite. Manifests never change once written, so
 * each is read once in this process and remembered (at most {@link #REMEMBERED} of them): fast
 * appends share their manifests between snapshots, and a rewritten snapshot is checked at every
 * rebuild while it is kept.
 */
final class SnapshotFiles {
    static final int REMEMBERED = 20_000;

    private static final Map<String, Set<String>> MANIFESTS =
            Collections.synchronizedMap(new LinkedHashMap<>(1024, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Set<String>> eldest) {
                    return size() > REMEMBERED;
                }
            });

    private SnapshotFiles() {}

    static Set<String> of(Snapshot snapshot, FileIO io, Map<Integer, PartitionSpec> specs) {
        Set<String> files = new HashSet<>();
        for (ManifestFile manifest : snapshot.dataManifests(io)) {
            Set<String> listed = MANIFESTS.get(manifest.path());
            if (listed == null) {
                listed = read(manifest, io, specs);
                MANIFESTS.put(manifest.path(), listed);
            }
            files.addAll(listed);
        }
        return files;
    }

    private static Set<String> read(ManifestFile manifest, FileIO io, Map<Integer, PartitionSpec> specs) {
        Set<String> listed = new HashSet<>();
        try (ManifestReader<DataFile> reader =
                ManifestFiles.read(manifest, io, specs).select(List.of("file_path"))) {
            for (DataFile file : reader) {
                listed.add(file.location());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
        }
        return Set.copyOf(listed);
    }
}
