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
 * Whether a snapshot lists only data files of a layout: what a rebuild checks of every kept
 * snapshot to tell one on its layout already from one to rewrite. Manifest lists and manifests
 * never change once written, so each is read once in this process and remembered (at most {@link
 * #REMEMBERED} of each): fast appends share their manifests between snapshots, and a kept snapshot
 * is checked at every rebuild while it is kept.
 */
final class SnapshotFiles {
    static final int REMEMBERED = 20_000;

    private static final Map<String, List<ManifestFile>> LISTS = remembered();
    private static final Map<String, Set<String>> MANIFESTS = remembered();

    private SnapshotFiles() {}

    /** Whether every data file {@code snapshot} lists is in {@code layout}. */
    static boolean allIn(Snapshot snapshot, FileIO io, Map<Integer, PartitionSpec> specs, Set<String> layout) {
        for (ManifestFile manifest : dataManifests(snapshot, io)) {
            Set<String> listed = MANIFESTS.get(manifest.path());
            if (listed == null) {
                listed = read(manifest, io, specs);
                MANIFESTS.put(manifest.path(), listed);
            }
            if (!layout.containsAll(listed)) {
                return false;
            }
        }
        return true;
    }

    private static List<ManifestFile> dataManifests(Snapshot snapshot, FileIO io) {
        String list = snapshot.manifestListLocation();
        if (list == null) {
            return snapshot.dataManifests(io); // format 1 without a list: in the metadata itself
        }
        List<ManifestFile> manifests = LISTS.get(list);
        if (manifests == null) {
            manifests = List.copyOf(snapshot.dataManifests(io));
            LISTS.put(list, manifests);
        }
        return manifests;
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

    private static <V> Map<String, V> remembered() {
        return Collections.synchronizedMap(new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > REMEMBERED;
            }
        });
    }
}
