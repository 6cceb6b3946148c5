package dev.floe.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.OutputFile;

/**
 * Writes, before the gate is taken, the manifest listing a rebuild's files, so that under the gate
 * the scratch commit writes only a small manifest for the last appends, its manifest list and its
 * metadata file: the gate is held for milliseconds, not for a manifest of every file.
 *
 * <p>Only for tables that inherit snapshot ids (format 2 and later): Iceberg uses such a manifest as
 * it is. A format-1 table would copy it, so there the files are appended one by one instead.
 */
final class PrewrittenManifest {
    private PrewrittenManifest() {}

    /** The manifest, or null when the table's format copies appended manifests (or nothing to list). */
    static ManifestFile write(Table scratch, List<DataFile> files, RebuildJournal journal) {
        TableMetadata metadata = ((HasTableOperations) scratch).operations().current();
        if (files.isEmpty() || metadata.formatVersion() < 2) {
            return null;
        }
        String location = ((HasTableOperations) scratch)
                .operations()
                .metadataFileLocation("floe-" + UUID.randomUUID() + "-m0.avro");
        journal.fileStarted(location);
        OutputFile out = scratch.io().newOutputFile(location);
        ManifestWriter<DataFile> writer = ManifestFiles.write(metadata.formatVersion(), scratch.spec(), out, null);
        try (writer) {
            files.forEach(writer::add);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write manifest " + location, e);
        }
        return writer.toManifestFile();
    }
}
