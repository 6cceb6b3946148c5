package dev.floe.runtime.testing;

import dev.floe.catalog.MapDbCatalog;
import java.nio.file.Path;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A real MapDbCatalog in a temporary folder, with namespace {@code db}, for each test. */
public abstract class CatalogFixture {
    public static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @TempDir
    public Path root;

    public MapDbCatalog catalog;

    @BeforeEach
    public void openCatalog() {
        catalog = TestTables.catalog(root);
        catalog.createNamespace(Namespace.of("db"));
    }

    @AfterEach
    public void closeCatalog() throws Exception {
        catalog.close();
    }
}
