package dev.floe.runtime.install;

import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Table operations that stage commits in memory on top of a starting version of a live table.
 * Manifests and manifest lists are written through the live table's FileIO and into its metadata
 * folder, but no metadata file and no catalog pointer: Iceberg's own {@code FastAppend} builds the
 * rebuilt snapshot here, and {@link RebuiltVersion} then installs the staged version with one commit
 * of the live table's own operations, the catalog's compare-and-swap.
 *
 * <p>Iceberg names every file it writes here through {@link #metadataFileLocation} before it writes
 * a byte of it: each name starts with {@code floe-} (telling floe's files apart from the host's in
 * the table's folder) and is handed to {@code started} (the rebuild's journal) first, so a crash
 * while the rebuilt version is staged leaves nothing recovery does not know of.
 */
final class StagedOperations implements TableOperations {
    private final TableOperations live;
    private final UnaryOperator<String> locate;
    private final Long snapshotId;
    private TableMetadata staged;

    StagedOperations(TableOperations live, TableMetadata start, Consumer<String> started) {
        this(live, start, started, null);
    }

    /** Staged operations whose one commit makes a snapshot of id {@code snapshotId} (null: a new id). */
    StagedOperations(TableOperations live, TableMetadata start, Consumer<String> started, Long snapshotId) {
        this(
                start,
                live,
                fileName -> {
                    String location =
                            live.metadataFileLocation(fileName.startsWith("floe-") ? fileName : "floe-" + fileName);
                    started.accept(location);
                    return location;
                },
                snapshotId);
    }

    /**
     * Staged operations that place each file Iceberg names with {@code locate} (a file name to the
     * location it is written at, handed to the journal first).
     */
    StagedOperations(TableMetadata start, TableOperations live, UnaryOperator<String> locate, Long snapshotId) {
        this.live = live;
        this.staged = start;
        this.locate = locate;
        this.snapshotId = snapshotId;
    }

    /** The version the commits so far have built. */
    @Override
    public TableMetadata current() {
        return staged;
    }

    @Override
    public TableMetadata refresh() {
        return staged;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
        if (base != staged) {
            throw new CommitFailedException("Cannot stage a commit on a version that is not the staged one");
        }
        staged = metadata;
    }

    @Override
    public FileIO io() {
        return live.io();
    }

    @Override
    public EncryptionManager encryption() {
        return live.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
        return locate.apply(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
        return live.locationProvider();
    }

    @Override
    public long newSnapshotId() {
        return snapshotId != null ? snapshotId : live.newSnapshotId();
    }
}
