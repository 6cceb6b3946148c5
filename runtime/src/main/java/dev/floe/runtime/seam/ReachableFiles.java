package dev.floe.runtime.seam;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;

/**
 * Every file a table's metadata references, by location: metadata files (current and the
 * metadata log), manifest lists, manifests, data and delete files, statistics files. Reclaim and
 * recovery decide what to delete from these sets, never from a directory listing.
 *
 * <p>Manifests shared by many snapshots (fast appends carry them all forward) are read once.
 */
public final class ReachableFiles {
    /**
     * The summary key of a rebuilt snapshot that names the file where the rebuild recorded where the
     * rows of the files it consumed went (its layout map): a file of the table like any other.
     */
    public static final String LAYOUT_MAP = "floe.layout-map";

    private final FileIO io;
    private final boolean strict;
    private final Set<String> files = new LinkedHashSet<>();
    private final Set<String> manifestsRead = new HashSet<>();
    /** Snapshots read, by id and manifest list: a snapshot rewritten onto a later layout keeps its id. */
    private final Set<String> snapshotsSeen = new HashSet<>();

    /**
     * @param strict whether a manifest that cannot be found is an error (for what must be kept) or
     *     merely skipped (for what is being deleted, where an interrupted run may have removed it)
     */
    public ReachableFiles(FileIO io, boolean strict) {
        this.io = io;
        this.strict = strict;
    }

    /** Everything {@code metadata} references. */
    public static Set<String> of(TableMetadata metadata, FileIO io) {
        ReachableFiles reachable = new ReachableFiles(io, true);
        reachable.add(metadata);
        return reachable.files();
    }

    /** A copy to add more to, which reads again none of the manifests or lists read so far. */
    public ReachableFiles copy() {
        ReachableFiles copy = new ReachableFiles(io, strict);
        copy.files.addAll(files);
        copy.manifestsRead.addAll(manifestsRead);
        copy.snapshotsSeen.addAll(snapshotsSeen);
        return copy;
    }

    public Set<String> files() {
        return files;
    }

    /** Adds everything {@code metadata} references. */
    public ReachableFiles add(TableMetadata metadata) {
        if (metadata.metadataFileLocation() != null) {
            files.add(metadata.metadataFileLocation());
        }
        metadata.previousFiles().forEach(entry -> files.add(entry.file()));
        for (StatisticsFile stats : metadata.statisticsFiles()) {
            files.add(stats.path());
        }
        for (PartitionStatisticsFile stats : metadata.partitionStatisticsFiles()) {
            files.add(stats.path());
        }
        for (Snapshot snapshot : metadata.snapshots()) {
            if (!snapshotsSeen.add(snapshot.snapshotId() + " " + snapshot.manifestListLocation())) {
                continue;
            }
            if (snapshot.manifestListLocation() != null) {
                files.add(snapshot.manifestListLocation());
            }
            if (snapshot.summary() != null && snapshot.summary().get(LAYOUT_MAP) != null) {
                files.add(snapshot.summary().get(LAYOUT_MAP));
            }
            for (ManifestFile manifest : snapshot.allManifests(io)) {
                addManifest(manifest, metadata);
            }
        }
        return this;
    }

    private void addManifest(ManifestFile manifest, TableMetadata metadata) {
        if (!manifestsRead.add(manifest.path())) {
            return;
        }
        files.add(manifest.path());
        try (ManifestReader<? extends ContentFile<?>> reader = open(manifest, metadata)) {
            for (ContentFile<?> file : reader) {
                files.add(file.location());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
        } catch (NotFoundException e) {
            if (strict) {
                throw e;
            }
            // already deleted (a reclaim that was interrupted): nothing more to find through it
        }
    }

    private ManifestReader<? extends ContentFile<?>> open(ManifestFile manifest, TableMetadata metadata) {
        if (manifest.content() == ManifestContent.DELETES) {
            return ManifestFiles.readDeleteManifest(manifest, io, metadata.specsById());
        }
        return ManifestFiles.read(manifest, io, metadata.specsById());
    }
}
