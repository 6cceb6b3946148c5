package dev.floe.bench;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;

/** The metadata bytes a table still references, as against all under its metadata/ directory. */
final class LiveMetadata {
    private LiveMetadata() {}

    /**
     * Bytes of the metadata files {@code table} still references: its current metadata file, the
     * previous ones its metadata log names (if still on disk), every snapshot's manifest list and
     * every manifest those lists name, the layout maps rebuilt snapshots name (each counted once); -1
     * for a table without operations.
     */
    static long bytes(Table table) {
        if (!(table instanceof HasTableOperations)) {
            return -1;
        }
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        FileIO io = table.io();
        Set<String> seen = new HashSet<>();
        long bytes = 0;
        List<String> metadataFiles = new ArrayList<>();
        metadataFiles.add(metadata.metadataFileLocation());
        metadata.previousFiles().forEach(entry -> metadataFiles.add(entry.file()));
        for (String location : metadataFiles) {
            if (location != null && seen.add(location)) {
                bytes += lengthIfExists(io, location);
            }
        }
        for (Snapshot snapshot : metadata.snapshots()) {
            String map = snapshot.summary() == null ? null : snapshot.summary().get("floe.layout-map");
            if (map != null && seen.add(map)) {
                bytes += lengthIfExists(io, map); // a rebuild's layout map, which the next one reads
            }
            String list = snapshot.manifestListLocation();
            if (list == null || !seen.add(list)) {
                continue;
            }
            bytes += lengthIfExists(io, list);
            // the manifest list is read with plain Avro rather than Snapshot.allManifests, which would
            // keep every list's entries cached in the table's snapshots: O(N^2) objects at N snapshots
            try (InputStream in = io.newInputFile(list).newStream();
                    DataFileStream<GenericRecord> entries = new DataFileStream<>(in, new GenericDatumReader<>())) {
                GenericRecord entry = null;
                while (entries.hasNext()) {
                    entry = entries.next(entry);
                    String manifest = String.valueOf(entry.get("manifest_path"));
                    if (seen.add(manifest)) {
                        bytes += ((Number) entry.get("manifest_length")).longValue();
                    }
                }
            } catch (IOException | RuntimeException e) {
                // a list deleted meanwhile: its manifests are not live through it
            }
        }
        return bytes;
    }

    private static long lengthIfExists(FileIO io, String location) {
        try {
            return io.newInputFile(location).getLength();
        } catch (RuntimeException e) {
            return 0; // not found (deleted meanwhile): not live
        }
    }
}
