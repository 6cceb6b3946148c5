package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sample ingest, an ordinary Iceberg program, in a real JVM with the agent attached. */
class IngestWithAgentIT {
    static final int TRIGGER = 60;
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

    @TempDir
    Path dir;

    private Path catalogProperties() throws IOException {
        Path file = dir.resolve("catalog.properties");
        Files.writeString(
                file, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + dir.resolve("warehouse") + "\n");
        return file;
    }

    private Path floeProperties(String extra) throws IOException {
        Path file = dir.resolve("floe.properties");
        Files.writeString(
                file,
                "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1s\n"
                        + extra);
        return file;
    }

    private Jvm.Run ingest(Path floe, int commits, int rows, int threads) throws Exception {
        return Jvm.run(
                dir.resolve("ingest.log"),
                floe == null ? List.of() : List.of(Jvm.agentArg(floe)),
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                catalogProperties().toString(),
                EVENTS.toString(),
                Integer.toString(commits),
                Integer.toString(rows),
                Integer.toString(threads));
    }

    /** Every id in the table, read through a catalog opened after the host exited. */
    private List<Long> idsReadBack() throws Exception {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize(
                "check",
                Map.of(
                        CatalogProperties.WAREHOUSE_LOCATION,
                        dir.resolve("warehouse").toString()));
        try (catalog) {
            Table table = catalog.loadTable(EVENTS);
            List<Long> ids = new java.util.ArrayList<>();
            try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
                rows.forEach(r -> ids.add((Long) r.getField("id")));
            }
            return ids;
        }
    }

    private static void assertExactlyOnce(List<Long> ids, long expected) {
        Set<Long> distinct = new HashSet<>(ids);
        assertThat(ids).hasSize((int) expected);
        assertThat(distinct).hasSize((int) expected);
        assertThat(distinct).allSatisfy(id -> assertThat(id).isBetween(0L, expected - 1));
    }

    @Test
    void singleWriterIsRebuiltAndLosesNothing() throws Exception {
        int commits = 300;
        Jvm.Run run = ingest(floeProperties(""), commits, 5, 1);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("[floe] INFO floe "))
                .as(run.output())
                .singleElement()
                .asString()
                .as("the start line names the release the build wrote")
                .contains("[floe] INFO floe " + System.getProperty("floe.version") + " ");
        assertThat(run.lines("[floe] INFO guarding Iceberg "))
                .as(run.output())
                .singleElement()
                .asString()
                .as("the guard says what was instrumented in its loader")
                .contains("in the system class loader: instrumented 9 of 9 types [BaseMetastoreTableOperations,"
                        + " HadoopTableOperations, RESTTableOperations, SnapshotProducer,"
                        + " BaseMetastoreCatalogTableBuilder, BaseMetastoreCatalog, RESTCatalog, CachingCatalog,"
                        + " MapDbCatalog]");
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        // an append that waited at the gate while a rebuild swapped the table applies itself to the
        // rebuilt table (SnapshotProducer.commit holds the gate): no failed compare-and-swap, no retry
        assertThat(run.lines("Retrying task after failure")).as(run.output()).isEmpty();
        assertThat(run.resultLong("rows")).isEqualTo(commits * 5L);
        assertThat(run.resultLong("distinctIds")).isEqualTo(commits * 5L);
        // a rebuild runs in the background while commits go on: a few commits may land past the trigger
        assertThat(run.resultLong("sinceRewrite")).isLessThan(TRIGGER + 30);
        assertThat(run.resultLong("rewrites"))
                .as("rebuilds on main, history kept")
                .isPositive();
        assertExactlyOnce(idsReadBack(), commits * 5L);
    }

    @Test
    void fourWritersAreRebuiltAndLoseNothing() throws Exception {
        int commits = 300;
        Jvm.Run run = ingest(floeProperties(""), commits, 5, 4);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        // the gate holds each append from its apply to its commit, so writers of one table take turns
        // instead of racing and retrying
        assertThat(run.lines("Retrying task after failure")).as(run.output()).isEmpty();
        assertThat(run.resultLong("rows")).isEqualTo(commits * 5L);
        assertThat(run.resultLong("distinctIds")).isEqualTo(commits * 5L);
        assertThat(run.resultLong("sinceRewrite")).isLessThan(TRIGGER + 40);
        assertExactlyOnce(idsReadBack(), commits * 5L);
    }

    @Test
    void invalidConfigurationLeavesTheHostUnguardedAndNamesTheKey() throws Exception {
        int commits = 80;
        Jvm.Run run = ingest(floeProperties("floe.trigger.data-files=many\n"), commits, 2, 1);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("[floe] ERROR"))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("floe.trigger.data-files is 'many'")
                .contains("The host runs unguarded");
        assertThat(run.lines("floe: rebuilt")).isEmpty();
        assertThat(run.resultLong("snapshots")).isEqualTo(commits);
        assertThat(run.resultLong("rows")).isEqualTo(commits * 2L);
    }

    @Test
    void hostWithoutIcebergOnTheSystemClassPathRunsAndFloeSaysItWaitsForALoader() throws Exception {
        Path classes = dir.resolve("classes");
        Path source = dir.resolve("Hello.java");
        Files.writeString(
                source,
                "public class Hello { public static void main(String[] a) { System.out.println(\"hello from a host without Iceberg\"); } }");
        Process javac = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                        "-d",
                        classes.toString(),
                        source.toString())
                .inheritIO()
                .start();
        assertThat(javac.waitFor()).isZero();

        Jvm.Run run = Jvm.run(dir.resolve("hello.log"), List.of(Jvm.agentArg(null)), classes.toString(), "Hello");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("hello from a host without Iceberg");
        // Iceberg may still come in a class loader of the host's own (see IsolatedLoaderIT): floe says so
        // once and stays out of the way
        assertThat(run.lines("[floe]"))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("INFO")
                .contains("no Iceberg on the system class path");
        assertThat(run.output()).doesNotContain("Exception").doesNotContain("WARNING");
    }
}
