package dev.floe.runtime.install;

import dev.floe.runtime.rows.DeleteFileKey;
import dev.floe.runtime.seam.RebuildJournal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.OutputFile;

/**
 * The manifests of a rebuilt snapshot. Written before the gate is taken for the files known then,
 * so that under the gate the commit writes only small manifests for what was carried since, its
 * manifest list and its metadata file: the gate is held for milliseconds, not for a manifest of
 * every file.
 *
 * <p>The pinned data files (kept and rewritten) are listed with data sequence number 0: they hold
 * the rows as of the pin, older than everything committed since, so an equality delete carried
 * over the rebuild applies to them as it did on the live table (a scratch table numbers its
 * sequence anew, so the pinned snapshot's own number would not fit there). Carried data files and
 * every delete file take the rebuilt snapshot's number: a position delete or vector applies to the
 * file it names whatever its number, and a carried equality delete to no carried file ({@link
 * EqualityResolution} gives those their positions).
 *
 * <p>Only for tables that inherit snapshot ids (format 2 and later): Iceberg uses such a manifest as
 * it is. A format-1 table would copy it, so there the files are appended one by one instead.
 */
public final class PrewrittenManifest {
    static final long PINNED_SEQUENCE_NUMBER = 0;

    private final List<ManifestFile> manifests;
    private final Set<String> listed;
    private boolean discarded;

    private PrewrittenManifest(List<ManifestFile> manifests, Set<String> listed) {
        this.manifests = List.copyOf(manifests);
        this.listed = listed;
    }

    /** None written: the commit writes every manifest (or, format 1, appends the files one by one). */
    static PrewrittenManifest none() {
        return new PrewrittenManifest(List.of(), Set.of());
    }

    /** The manifests of {@code files}, or {@link #none} when the table's format copies appended manifests. */
    public static PrewrittenManifest write(Table target, RebuiltFiles files, RebuildJournal journal) {
        if (formatVersion(target) < 2) {
            return none();
        }
        List<ManifestFile> manifests = new ArrayList<>();
        Set<String> listed = new HashSet<>();
        writeManifests(target, files, Set.of(), journal, manifests, listed);
        return new PrewrittenManifest(manifests, listed);
    }

    /**
     * The manifests of {@code files}: these, if every file they list is still in {@code files}, and
     * new ones for the rest; else all new (a commit since removed a file they list).
     */
    List<ManifestFile> completedFor(Table target, RebuiltFiles files, RebuildJournal journal) {
        Set<String> now = new HashSet<>();
        files.pinned().forEach(f -> now.add(DeleteFileKey.of(f)));
        files.carried().forEach(f -> now.add(DeleteFileKey.of(f)));
        files.pinnedDeletes().forEach(f -> now.add(DeleteFileKey.of(f)));
        files.carriedDeletes().forEach(f -> now.add(DeleteFileKey.of(f)));
        boolean reusable = !discarded && now.containsAll(listed);
        if (!reusable && !discarded) {
            // a file they list left the table since: they are written anew, and these go now (nothing
            // references them yet), so that a successful install leaves none of them behind
            manifests.forEach(m -> target.io().deleteFile(m.path()));
            discarded = true;
        }
        List<ManifestFile> all = new ArrayList<>(reusable ? manifests : List.of());
        Set<String> skip = reusable ? listed : Set.of();
        writeManifests(target, files, skip, journal, all, new HashSet<>());
        return all;
    }

    /** Whether {@code manifest} is one of these. */
    boolean holds(String manifest) {
        return manifests.stream().anyMatch(m -> m.path().equals(manifest));
    }

    private static <F extends ContentFile<F>> List<F> unlisted(List<F> files, Set<String> listed) {
        if (listed.isEmpty()) {
            return files;
        }
        return files.stream().filter(f -> !listed.contains(DeleteFileKey.of(f))).toList();
    }

    /** A data manifest and a delete manifest of {@code files} but those in {@code skip} (each only if it lists any). */
    private static void writeManifests(
            Table target,
            RebuiltFiles files,
            Set<String> skip,
            RebuildJournal journal,
            List<ManifestFile> into,
            Set<String> listed) {
        writeManifest(
                target, unlisted(files.pinned(), skip), unlisted(files.carried(), skip), journal, into, listed, DATA);
        writeManifest(
                target,
                unlisted(files.pinnedDeletes(), skip),
                unlisted(files.carriedDeletes(), skip),
                journal,
                into,
                listed,
                DELETES);
    }

    /** One manifest of {@code pinned} and {@code carried}, added to {@code into}; none when both are empty. */
    private static <F extends ContentFile<F>> void writeManifest(
            Table target,
            List<F> pinned,
            List<F> carried,
            RebuildJournal journal,
            List<ManifestFile> into,
            Set<String> listed,
            Content<F> content) {
        if (pinned.isEmpty() && carried.isEmpty()) {
            return;
        }
        OutputFile out = newManifest(target, journal);
        ManifestWriter<F> writer = content.open().apply(target, out);
        try (writer) {
            pinned.forEach(file -> content.addPinned().accept(writer, file));
            carried.forEach(writer::add);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write manifest " + out.location(), e);
        }
        pinned.forEach(f -> listed.add(DeleteFileKey.of(f)));
        carried.forEach(f -> listed.add(DeleteFileKey.of(f)));
        into.add(writer.toManifestFile());
    }

    /** How a manifest of one content (data or deletes) is opened, and how it takes a pinned file. */
    private record Content<F extends ContentFile<F>>(
            BiFunction<Table, OutputFile, ManifestWriter<F>> open, BiConsumer<ManifestWriter<F>, F> addPinned) {}

    private static final Content<DataFile> DATA = new Content<>(
            (target, out) -> ManifestFiles.write(formatVersion(target), target.spec(), out, null),
            (writer, file) -> writer.add(file, PINNED_SEQUENCE_NUMBER));

    // deletes with sequence number 0 are ignored by Iceberg's readers: every delete file takes the
    // rebuilt snapshot's, which applies each to the files it names or precedes
    private static final Content<DeleteFile> DELETES = new Content<>(
            (target, out) -> ManifestFiles.writeDeleteManifest(formatVersion(target), target.spec(), out, null),
            (writer, file) -> writer.add(file));

    private static OutputFile newManifest(Table target, RebuildJournal journal) {
        String location = ((HasTableOperations) target)
                .operations()
                .metadataFileLocation("floe-" + UUID.randomUUID() + "-m0.avro");
        journal.fileStarted(location);
        return target.io().newOutputFile(location);
    }

    private static int formatVersion(Table target) {
        TableMetadata metadata = ((HasTableOperations) target).operations().current();
        return metadata.formatVersion();
    }
}
