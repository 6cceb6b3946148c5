package dev.floe.runtime.guard;

import dev.floe.catalog.FloeStateFile;
import dev.floe.runtime.seam.FloeState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * floe's records for the tables of shared catalogs: the state file ({@code floe.state.file}), opened
 * when a rebuild first needs it and held until the guard closes. One process holds a state file, as
 * one holds a catalog file; when another holds it, this guard gates and watches those tables but
 * rebuilds none, and says so once.
 */
final class SharedState {
    private static final Logger LOG = LoggerFactory.getLogger(SharedState.class);

    private final Path path;
    private final AtomicBoolean warned = new AtomicBoolean();
    private FloeStateFile file; // guarded by this
    private boolean suspended; // guarded by this

    SharedState(Path path) {
        this.path = path;
    }

    /**
     * The records of {@code catalog}'s tables; null when the state file cannot be opened, or when it
     * does not exist and {@code create} is false (recovery: nothing to recover from), or while it is
     * suspended.
     */
    synchronized FloeState of(SharedCatalog catalog, boolean create) {
        if (suspended) {
            return null;
        }
        if (file == null) {
            if (!create && !Files.exists(path)) {
                return null;
            }
            try {
                file = FloeStateFile.open(path);
            } catch (RuntimeException e) {
                if (warned.compareAndSet(false, true)) {
                    LOG.error(
                            "floe: cannot open its state file {} ({}); tables of {} and other shared catalogs are gated"
                                    + " and watched but not rebuilt in this process. Give each process its own"
                                    + " floe.state.file.",
                            path,
                            e.getMessage(),
                            catalog);
                }
                return null;
            }
        }
        return FloeState.of(file).scoped(catalog.key());
    }

    /** Whether the state file exists (whether floe may have records there). */
    boolean exists() {
        return Files.exists(path);
    }

    /**
     * Closes the state file, cleanly, and keeps it closed until {@link #resume}: the host holds no
     * catalog these records are for (it closed them all, as a host that ends does).
     */
    synchronized void suspend() {
        suspended = true;
        close();
    }

    /** The host opened a catalog these records are for: the state file opens again when work needs it. */
    synchronized void resume() {
        suspended = false;
    }

    synchronized void close() {
        if (file != null) {
            file.close();
            file = null;
        }
    }
}
