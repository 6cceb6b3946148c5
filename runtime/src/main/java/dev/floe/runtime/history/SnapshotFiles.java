package dev.floe.runtime.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.io.FileIO;

/**
 * The data files a kept snapshot lists, read from its manifests: what a rebuild checks against its
 * layout at every rebuild, and what it rewrites a snapshot without deletes from. Manifest lists and
 * manifests never change once written, so each is read once in this process and remembered (at most
 * {@link #REMEMBERED} of each): fast appends share their manifests between snapshots, so planning
 * each kept snapshot through Iceberg would read the same manifests again for every one of them.
 */
final class SnapshotFiles {
    static final int REMEMBERED = 20_000;

    private static final Map<String, List<ManifestFile>> LISTS = remembered();
    private static final Map<String, List<DataFile>> MANIFESTS = remembered();

    private SnapshotFiles() {}

    /** The data files {@code snapshot} lists that are not in {@code layout}: none when it is on the layout already. */
    static List<DataFile> leftOf(Snapshot snapshot, FileIO io, Map<Integer, PartitionSpec> specs, Set<String> layout) {
        List<DataFile> left = new ArrayList<>();
        for (DataFile file : dataFiles(snapshot, io, specs)) {
            if (!layout.contains(file.location())) {
                left.add(file);
            }
        }
        return left;
    }

    /** Whether {@code snapshot} lists any delete file. */
    static boolean hasDeletes(Snapshot snapshot, FileIO io) {
        return manifests(snapshot, io).stream().anyMatch(m -> m.content() == ManifestContent.DELETES);
    }

    /** The data files {@code snapshot} lists (without their column statistics). */
    static List<DataFile> dataFiles(Snapshot snapshot, FileIO io, Map<Integer, PartitionSpec> specs) {
        List<DataFile> all = new ArrayList<>();
        for (ManifestFile manifest : manifests(snapshot, io)) {
            if (manifest.content() == ManifestContent.DATA) {
                all.addAll(files(manifest, io, specs));
            }
        }
        return all;
    }

    private static List<ManifestFile> manifests(Snapshot snapshot, FileIO io) {
        String list = snapshot.manifestListLocation();
        if (list == null) {
            return snapshot.allManifests(io); // format 1 without a list: in the metadata itself
        }
        List<ManifestFile> manifests = LISTS.get(list);
        if (manifests == null) {
            manifests = List.copyOf(snapshot.allManifests(io));
            LISTS.put(list, manifests);
        }
        return manifests;
    }

    private static List<DataFile> files(ManifestFile manifest, FileIO io, Map<Integer, PartitionSpec> specs) {
        List<DataFile> listed = MANIFESTS.get(manifest.path());
        if (listed != null) {
            return listed;
        }
        List<DataFile> read = new ArrayList<>();
        try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io, specs)) {
            for (DataFile file : reader) {
                read.add(file.copyWithoutStats());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
        }
        listed = List.copyOf(read);
        MANIFESTS.put(manifest.path(), listed);
        return listed;
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
