package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The version matrix (issue 19): the sample ingest, an ordinary Iceberg program, in a real JVM on
 * each supported Iceberg line's release with the agent attached. Each host's class path is that
 * release with the dependencies it declares (its Parquet, Avro, Jackson, Caffeine: the compat
 * modules resolve them), plus what the sample itself brings (floe's catalog adapter, MapDB,
 * Hadoop). floe must say the version it guards at start, instrument every type, rebuild the table
 * while it streams, keep the handles the host holds working through each swap, and lose no row.
 *
 * <p>1.10 is 1.10.1, the release floe is built against, on which every other test runs (the sample
 * ingest in IngestWithAgentIT, the upsert stream in UpsertStreamIT); of 1.10.2 only iceberg-core is
 * served here, and 1.10.2 changes iceberg-api and iceberg-data too.
 */
class IcebergVersionMatrixIT {
    static final int COMMITS = 80;
    static final int ROWS = 4;
    static final int THREADS = 2;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "Iceberg {0}")
    @CsvSource({"1.9.2, ../compat/iceberg-1.9", "1.11.0, ../compat/iceberg-1.11", "1.12.0, ../compat/iceberg-1.12"})
    void theSampleIngestIsGuardedAndRebuiltOnEveryIcebergLine(String version, String compatModule) throws Exception {
        Path catalog = catalogProperties();
        Path config =
                floeProperties("floe.trigger.snapshots=20\nfloe.trigger.min-interval=1s\nfloe.merge.manifests=6\n");

        Jvm.Run run = Jvm.run(
                dir.resolve("ingest.log"),
                List.of(Jvm.agentArg(config)),
                hostClassPath(compatModule),
                "dev.floe.samples.Ingest",
                catalog.toString(),
                "db.events",
                Integer.toString(COMMITS),
                Integer.toString(ROWS),
                Integer.toString(THREADS));

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("[floe] INFO floe "))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("guards Iceberg " + version);
        assertThat(run.lines("[floe] INFO guarding Iceberg " + version
                        + " in the system class loader: instrumented 9 of 9 types"))
                .as(run.output())
                .hasSize(1);
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        // between rebuilds the appends' manifests were merged through this Iceberg's rewriteManifests
        assertThat(run.lines("floe: merged the ")).as(run.output()).hasSize(1);
        Map<String, String> result = run.result();
        long written = (long) COMMITS * ROWS;
        assertThat(result)
                .as(run.output())
                .containsEntry("commits", Integer.toString(COMMITS))
                .containsEntry("rows", Long.toString(written))
                .containsEntry("distinctIds", Long.toString(written))
                .containsEntry("handles", Integer.toString(THREADS));
        // each thread commits on the handle it loaded at start, reloaded at every rebuild: the rebuilt
        // snapshots are on main, on top of the history kept
        assertThat(Long.parseLong(result.get("rewrites")))
                .as("rebuilds on main:\n%s", run.output())
                .isPositive();
        assertThat(Long.parseLong(result.get("sinceRewrite")))
                .as("snapshots since the last rebuild")
                .isLessThan(COMMITS);
    }

    /**
     * Old versions rewritten onto each rebuild's files ({@code floe.history.rewrite-after=0s}) on the
     * oldest and the newest line: the snapshots edited through this Iceberg's own parser and builder,
     * their manifests made by its own {@code RowDelta}. Every version the table keeps reads back by id
     * with its rows, through this Iceberg's reader.
     */
    @ParameterizedTest(name = "Iceberg {0}")
    @CsvSource({"1.9.2, ../compat/iceberg-1.9", "1.12.0, ../compat/iceberg-1.12"})
    void oldVersionsAreRewrittenOntoTheRebuiltFilesOnTheOldestAndNewestLine(String version, String compatModule)
            throws Exception {
        Path catalog = catalogProperties();
        Path config = floeProperties(
                "floe.trigger.snapshots=20\nfloe.trigger.min-interval=0s\nfloe.history.rewrite-after=0s\n");
        int commits = 200;
        Jvm.Run run = Jvm.run(
                dir.resolve("rewrite.log"),
                List.of(Jvm.agentArg(config), "-Dingest.check-versions=true"),
                hostClassPath(compatModule),
                "dev.floe.samples.Ingest",
                catalog.toString(),
                "db.events",
                Integer.toString(commits),
                Integer.toString(ROWS),
                "1");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("[floe] INFO floe "))
                .as(run.output())
                .singleElement()
                .asString()
                .contains("guards Iceberg " + version);
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.lines("rewrites ")).as(run.output()).isNotEmpty();
        Map<String, String> result = run.result();
        assertThat(result).as(run.output()).containsEntry("distinctIds", Long.toString((long) commits * ROWS));
        assertThat(Integer.parseInt(result.get("versionsRewritten")))
                .as(run.output())
                .isPositive();
        assertThat(result.get("versionsExact")).as(run.output()).isEqualTo(result.get("versions"));
    }

    /**
     * The sample upsert host on each line: row deltas of data files and equality deletes, which floe
     * rebases onto each rebuild (position deletes, and deletion vectors in format 3) through the
     * host's Iceberg. Every key must be there once, with its latest version, on the fresh table and
     * on the handle the host held throughout.
     */
    @ParameterizedTest(name = "Iceberg {0}, format {2}")
    @CsvSource({
        "1.9.2, ../compat/iceberg-1.9, 3",
        "1.11.0, ../compat/iceberg-1.11, 3",
        "1.12.0, ../compat/iceberg-1.12, 2"
    })
    void theSampleUpsertStreamIsRebuiltWithItsDeletesOnEveryIcebergLine(String version, String compatModule, int format)
            throws Exception {
        Path catalog = catalogProperties();
        Path config = floeProperties("floe.trigger.snapshots=25\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=5m\n"
                + "floe.merge.manifests=8\n");

        Jvm.Run run = Jvm.run(
                dir.resolve("upsert.log"),
                List.of(
                        Jvm.agentArg(config),
                        "-Dingest.partition=day",
                        "-Dupsert.format-version=" + format,
                        "-Dupsert.scan-manifests=caller"),
                hostClassPath(compatModule),
                "dev.floe.samples.Upsert",
                catalog.toString(),
                "db.upserts",
                "120",
                "10",
                "400");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("[floe] INFO guarding Iceberg " + version
                        + " in the system class loader: instrumented 9 of 9 types"))
                .as(run.output())
                .hasSize(1);
        assertThat(run.lines("WARN")).as(run.output()).isEmpty();
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        List<String> rebuilt = run.lines("floe: rebuilt db.upserts");
        assertThat(rebuilt).as(run.output()).hasSizeGreaterThanOrEqualTo(2);
        // the row deltas that landed during a rebuild were rebased through this Iceberg (its snapshot
        // changes, its delete writers): at least one rebuild says so
        assertThat(rebuilt.stream().mapToLong(IcebergVersionMatrixIT::rebased).sum())
                .as("row deltas rebased onto the rebuilds: %s", rebuilt)
                .isPositive();
        assertThat(run.result())
                .as(run.output())
                .containsEntry("commits", "120")
                .containsEntry("wrong", "0")
                .containsEntry("heldWrong", "0")
                .containsEntry("deletesSincePin", "ok")
                .doesNotContainKey("problem");
        assertThat(run.result().get("rows"))
                .as("rows read back, one per key")
                .isEqualTo(run.result().get("keys"));
    }

    /** The host's catalog: a MapDbCatalog on a warehouse in this test's folder. */
    private Path catalogProperties() throws IOException {
        Path catalog = dir.resolve("catalog.properties");
        Files.writeString(
                catalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + dir.resolve("warehouse") + "\n");
        return catalog;
    }

    private Path floeProperties(String text) throws IOException {
        Path config = dir.resolve("floe.properties");
        Files.writeString(config, text);
        return config;
    }

    /**
     * The compat module's release and its dependencies, then each jar of the sample's own folder
     * whose artifact the release does not bring (floe's catalog adapter, MapDB, Hadoop, the logger),
     * then the sample's classes. Without a module: the sample's own folder, on the pinned Iceberg.
     */
    private static String hostClassPath(String compatModule) throws IOException {
        Path samples = Jvm.SAMPLES_JAR.getParent();
        Map<String, String> byArtifact = new LinkedHashMap<>();
        if (compatModule != null) {
            Path lib = Path.of(compatModule, "target", "lib");
            assertThat(lib)
                    .as("the compat module's folder (built before the agent; run with -am)")
                    .isDirectory();
            Jvm.jars(lib).forEach(jar -> byArtifact.put(artifactOf(jar), jar));
        }
        Jvm.jars(samples.resolve("lib")).forEach(jar -> byArtifact.putIfAbsent(artifactOf(jar), jar));
        List<String> classPath = new ArrayList<>(byArtifact.values());
        classPath.add(samples.resolve("classes").toAbsolutePath().toString());
        return String.join(File.pathSeparator, classPath);
    }

    /** The "N commits rebased" of a rebuild's line. */
    static long rebased(String line) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(\\d+) commits rebased").matcher(line);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** The artifact of a jar named artifact-version.jar: the name up to the first "-digit". */
    static String artifactOf(String jar) {
        String name = Path.of(jar).getFileName().toString();
        for (int i = 0; i + 1 < name.length(); i++) {
            if (name.charAt(i) == '-' && Character.isDigit(name.charAt(i + 1))) {
                return name.substring(0, i);
            }
        }
        return name;
    }
}
