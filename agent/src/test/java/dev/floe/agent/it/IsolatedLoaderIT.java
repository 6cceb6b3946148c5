package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hosts that load Iceberg in a class loader of their own (Spring Boot, Kafka Connect, Flink): the
 * sample ingest runs in a {@code URLClassLoader} whose parent is the platform loader, launched by
 * {@code IsolatedLauncher} with nothing but itself on the system class path, and the agent guards
 * it through that loader's Iceberg and catalog.
 */
class IsolatedLoaderIT {
    static final int TRIGGER = 40;
    static final Path SAMPLES_CLASSES = Jvm.SAMPLES_JAR.getParent().resolve("classes");

    @TempDir
    Path dir;

    private Path floeProperties() throws IOException {
        Path file = dir.resolve("floe.properties");
        Files.writeString(
                file, "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1s\n");
        return file;
    }

    private Path catalogProperties(String name) throws IOException {
        Path file = dir.resolve(name + ".properties");
        Files.writeString(file, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + dir.resolve(name) + "\n");
        return file;
    }

    /** Ingest arguments for one isolated run: its own class path (the samples jar and its lib/). */
    private List<String> run(String warehouse, String table, int commits) throws IOException {
        return List.of(
                Jvm.SAMPLES_JAR.toString(),
                catalogProperties(warehouse).toString(),
                table,
                Integer.toString(commits),
                "5",
                "1");
    }

    private Jvm.Run launch(List<String> args, String... jvmArgs) throws Exception {
        List<String> jvm = new ArrayList<>(List.of(jvmArgs));
        jvm.add(Jvm.agentArg(floeProperties()));
        return Jvm.run(
                dir.resolve("launcher.log"),
                jvm,
                launcherOnly().toString(),
                "dev.floe.samples.IsolatedLauncher",
                args.toArray(new String[0]));
    }

    /** A class path of the launcher's classes alone: not even the sample ingest is on it. */
    private Path launcherOnly() throws IOException {
        Path target = dir.resolve("launcher").resolve("dev/floe/samples");
        Files.createDirectories(target);
        try (var classes = Files.list(SAMPLES_CLASSES.resolve("dev/floe/samples"))) {
            for (Path file : (Iterable<Path>) classes::iterator) {
                if (file.getFileName().toString().startsWith("IsolatedLauncher")) {
                    Files.copy(
                            file,
                            target.resolve(file.getFileName()),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return dir.resolve("launcher");
    }

    private List<Long> idsReadBack(String warehouse, String table) throws Exception {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize(
                "check",
                Map.of(
                        CatalogProperties.WAREHOUSE_LOCATION,
                        dir.resolve(warehouse).toString()));
        try (catalog) {
            Table loaded = catalog.loadTable(TableIdentifier.parse(table));
            List<Long> ids = new ArrayList<>();
            try (CloseableIterable<Record> rows = IcebergGenerics.read(loaded).build()) {
                rows.forEach(r -> ids.add((Long) r.getField("id")));
            }
            return ids;
        }
    }

    private static void assertEveryRowOnce(List<Long> ids, int expected) {
        assertThat(ids).hasSize(expected);
        assertThat(new HashSet<>(ids)).hasSize(expected);
    }

    @Test
    void ingestInAnIsolatedLoaderIsGuardedThroughThatLoadersIceberg() throws Exception {
        int commits = 150;
        Jvm.Run run = launch(run("w1", "db.events", commits));

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("system class loader sees Iceberg: false");
        assertThat(run.lines("[floe] INFO floe "))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("no Iceberg on the system class path");
        assertThat(run.lines("[floe] INFO guarding Iceberg 1.10.1 in class loader 'ingest-1'"))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("instrumented 9 of 9 types");
        assertThat(run.lines("floe: rebuilt db.events"))
                .as(run.output())
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line).contains("[floe-compactor[loader=ingest-1-"));
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.lines("Retrying task after failure")).as(run.output()).isEmpty();
        assertThat(run.result("run 1 ").get("rows")).isEqualTo(Integer.toString(commits * 5));
        assertThat(run.result("run 1 ").get("distinctIds")).isEqualTo(Integer.toString(commits * 5));
        assertThat(Long.parseLong(run.result("run 1 ").get("rewrites"))).isPositive();
        assertEveryRowOnce(idsReadBack("w1", "db.events"), commits * 5);
    }

    @Test
    void twoIsolatedLoadersWithTwoIcebergsGetTwoIndependentGuards() throws Exception {
        int commits = 150;
        List<String> args = new ArrayList<>(run("w1", "db.a", commits));
        args.add("--also");
        args.addAll(run("w2", "db.b", commits));
        Jvm.Run run = launch(args);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("system class loader sees Iceberg: false");
        // each loader's tables are rebuilt by that loader's own guard (its own background thread)
        assertThat(run.lines("floe: rebuilt db.a"))
                .as(run.output())
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line).contains("[floe-compactor[loader=ingest-1-"));
        assertThat(run.lines("floe: rebuilt db.b"))
                .as(run.output())
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line).contains("[floe-compactor[loader=ingest-2-"));
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.lines("Retrying task after failure")).as(run.output()).isEmpty();
        for (String n : List.of("1", "2")) {
            assertThat(run.result("run " + n + " ").get("rows")).isEqualTo(Integer.toString(commits * 5));
            assertThat(run.result("run " + n + " ").get("distinctIds")).isEqualTo(Integer.toString(commits * 5));
            assertThat(run.output()).contains("run " + n + " exit 0");
        }
        assertEveryRowOnce(idsReadBack("w1", "db.a"), commits * 5);
        assertEveryRowOnce(idsReadBack("w2", "db.b"), commits * 5);
    }

    @Test
    void aLoaderThatAsksTheSystemLoaderFirstStillGetsItsOwnCatalog() throws Exception {
        // Spring Boot's launcher asks the system class loader first, and the JVM puts the agent jar on
        // the system class path: nothing of floe there may shadow the host's own catalog or MapDB
        int commits = 120;
        Jvm.Run run = launch(run("w1", "db.events", commits), "-Dlauncher.parent=system");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.result("run 1 ").get("distinctIds")).isEqualTo(Integer.toString(commits * 5));
        assertEveryRowOnce(idsReadBack("w1", "db.events"), commits * 5);
    }
}
