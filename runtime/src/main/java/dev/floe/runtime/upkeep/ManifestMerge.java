package dev.floe.runtime.upkeep;

import dev.floe.runtime.TableKey;
import dev.floe.runtime.WriterGate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.RewriteManifests;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Between two rebuilds, the step that keeps a guarded table's scans short: every fast append adds
 * a manifest of its own, which every scan then opens, so once the current snapshot holds {@code
 * atLeast} small data manifests they are merged into one per partition spec. Metadata only: no data
 * file is read or written, each file keeps its snapshot and sequence numbers (Iceberg's own {@code
 * rewriteManifests}, a {@code replace} snapshot), and nothing is deleted: the merged manifests stay
 * referenced by the earlier snapshots until the next rebuild retires them.
 *
 * <p>The manifests are read and the merged one written before the table's gate is taken (Iceberg's
 * {@code apply}); under the gate only the commit runs, which then reuses them as long as every
 * manifest merged is still in the table (host appends only add manifests): a manifest list and a
 * metadata file, as long as a host commit. Delete manifests are not merged (Iceberg's rewrite keeps
 * them as they are).
 */
public final class ManifestMerge {
    /** The merge commit's summary: how many data manifests it merged. */
    static final String MERGED_PROPERTY = "floe.merged-manifests";

    private ManifestMerge() {}

    /**
     * A merge committed: how many manifests it merged, and the table's metadata just before and
     * after its commit (what the commit pushed out of the metadata log is for the trim to delete).
     */
    public record Merged(int manifests, TableMetadata base, TableMetadata committed) {}

    /**
     * Merges the small data manifests of {@code table}'s current snapshot if there are at least
     * {@code atLeast} of them (in specs with two or more), committing under {@code gate}'s hold of
     * {@code key}. Null when there are too few.
     */
    public static Merged mergeIfDue(Table table, TableKey key, WriterGate gate, int atLeast) {
        Snapshot current = table.currentSnapshot();
        if (current == null) {
            return null;
        }
        Set<String> chosen = small(current.dataManifests(table.io()), targetBytes(table));
        if (chosen.size() < Math.max(2, atLeast)) {
            return null;
        }
        RewriteManifests merge = table.rewriteManifests()
                .clusterBy(file -> "floe")
                .rewriteIf(manifest -> chosen.contains(manifest.path()))
                .set(MERGED_PROPERTY, Integer.toString(chosen.size()));
        Snapshot staged = merge.apply(); // reads the manifests and writes the merged ones, outside the gate
        TableOperations ops = ((HasTableOperations) table).operations();
        boolean committing = false;
        gate.enter(key);
        try {
            TableMetadata base = ops.refresh();
            if (!stillCurrent(base, table, chosen)) {
                // a commit since removed or replaced one of them: the commit would merge them all again,
                // reading every manifest while the gate is held; the next merge starts afresh instead
                return null;
            }
            committing = true;
            merge.commit(); // cleans up what it wrote itself if it fails
            return new Merged(chosen.size(), base, ops.current());
        } finally {
            gate.exit(key);
            if (!committing) {
                discard(table, staged);
            }
        }
    }

    /** Whether every manifest of {@code chosen} is still in the current snapshot of {@code base}. */
    private static boolean stillCurrent(TableMetadata base, Table table, Set<String> chosen) {
        Snapshot current = base.currentSnapshot();
        if (current == null) {
            return false;
        }
        Set<String> paths = new HashSet<>();
        current.dataManifests(table.io()).forEach(m -> paths.add(m.path()));
        return paths.containsAll(chosen);
    }

    /** Deletes what {@code apply()} wrote for {@code staged}, never committed: its manifest list and new manifests. */
    private static void discard(Table table, Snapshot staged) {
        for (ManifestFile manifest : staged.allManifests(table.io())) {
            if (manifest.snapshotId() != null && manifest.snapshotId() == staged.snapshotId()) {
                table.io().deleteFile(manifest.path());
            }
        }
        table.io().deleteFile(staged.manifestListLocation());
    }

    /**
     * The paths of the manifests below {@code targetBytes}, in specs that have two or more of them
     * (one alone would only be copied).
     */
    static Set<String> small(List<ManifestFile> manifests, long targetBytes) {
        Map<Integer, List<String>> bySpec = new HashMap<>();
        for (ManifestFile manifest : manifests) {
            if (manifest.length() < targetBytes) {
                bySpec.computeIfAbsent(manifest.partitionSpecId(), spec -> new ArrayList<>())
                        .add(manifest.path());
            }
        }
        Set<String> chosen = new HashSet<>();
        bySpec.values().stream().filter(paths -> paths.size() > 1).forEach(chosen::addAll);
        return chosen;
    }

    /** The table's manifest target size ({@code commit.manifest.target-size-bytes}): smaller ones are merged. */
    private static long targetBytes(Table table) {
        return PropertyUtil.propertyAsLong(
                table.properties(),
                TableProperties.MANIFEST_TARGET_SIZE_BYTES,
                TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
    }
}
