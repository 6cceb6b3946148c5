package dev.floe.runtime.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/** How {@code floe.tables} names tables: every table of floe's catalog by default, shared ones only by name. */
class TableGlobsTest {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @Test
    void noGlobsGuardEveryEmbeddedTableAndNoSharedOne() {
        TableGlobs none = new TableGlobs(List.of());
        assertThat(none.matches(EVENTS)).isTrue();
        assertThat(none.names("prod", EVENTS)).isFalse();
    }

    @Test
    void aGlobNamesASharedTableByItsNameOrByItsCatalogsNameFirst() {
        TableGlobs plain = new TableGlobs(List.of("db.events"));
        assertThat(plain.names("prod", EVENTS)).isTrue();
        assertThat(plain.names("test", EVENTS)).isTrue();
        assertThat(plain.names("prod", TableIdentifier.of("db", "other"))).isFalse();

        TableGlobs qualified = new TableGlobs(List.of("prod.db.*"));
        assertThat(qualified.names("prod", EVENTS)).isTrue();
        assertThat(qualified.names("test", EVENTS))
                .as("another catalog's table of the same name")
                .isFalse();
        assertThat(qualified.matches(EVENTS))
                .as("floe's own catalog has no name in a glob")
                .isFalse();
    }

    @Test
    void aStarMatchesAcrossNamespaceLevels() {
        TableGlobs globs = new TableGlobs(List.of("logs.*"));
        assertThat(globs.names("prod", TableIdentifier.of("logs", "eu", "access")))
                .isTrue();
        assertThat(globs.names("prod", TableIdentifier.of("metrics", "cpu"))).isFalse();
    }
}
