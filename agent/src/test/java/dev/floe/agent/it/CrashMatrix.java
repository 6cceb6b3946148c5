package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.runtime.CrashPoint;
import dev.floe.runtime.seam.ReclaimJob;
import dev.floe.runtime.upkeep.Recovery;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash matrix, for one catalog: kill -9 at every step of a rebuild, and at random moments, of
 * a real JVM running a host ({@link CrashHost}) with the agent; then the same command again.
 * Afterwards: every acknowledged row is present exactly once, the table keeps its UUID, floe's
 * records hold no rebuild and no reclaim job, no file floe wrote is left unreferenced, and the table
 * rebuilt again.
 *
 * <p>CI runs every point once and one random kill. {@code -Dcrash.rounds=3 -Dcrash.random=20} runs
 * every point three times and twenty random kills (see docs/guarantees.md, "Crash runs").
 */
abstract class CrashMatrix {
    static final int TRIGGER = 12;
    static final int ROWS = 3;
    /** floe's records of rebuilds in progress (RebuildJournal.SECTION). */
    static final String JOURNAL = "floe.rebuild";

    @TempDir
    Path temp;

    /** The catalog the host commits to. */
    abstract CrashCatalog catalog();

    /** The crash points this catalog's rebuild reaches, in order. */
    abstract List<String> points();

    /**
     * Points run once more with a reclaim grace longer than the restart lasts: the reclaim job the
     * crash left is still waiting while the restarted host commits on, and runs only in the late
     * recovery.
     */
    List<String> pointsWithALongGrace() {
        return List.of();
    }

    /** floe settings this matrix adds to the agent's configuration, as lines of a properties file. */
    String extraConfig() {
        return "";
    }

    /** System properties of the host's JVM: its table's layout ({@link CrashHost}). */
    List<String> hostProperties() {
        return List.of();
    }

    /** Manifests one host commit writes (a row delta writes one for its data files and one for its deletes). */
    int hostManifestsPerCommit() {
        return 1;
    }

    /** Data files one commit of the host writes: what its commit in flight may leave unreferenced. */
    int hostFilesPerCommit() {
        return 1;
    }

    /** Checks what the crashed run printed before it died at {@code point}. */
    void crashedAt(String point, Jvm.Run crashed) {}

    /** Checks what the run restarted after a crash at {@code point} (null: a random kill) printed. */
    void restartedWith(String point, Jvm.Run restarted) {}

    /** The most commits the restarted host makes: it stops three commits after it sees a rebuild land. */
    int restartCommits() {
        return 200;
    }

    /** Checks more of the table read after the restart (every acknowledged row once is checked already). */
    void tableHolds(Table table) throws IOException {}

    /** Whether the rebuild's journal was cleared before {@code point} (without its "@n"): the restart has nothing to discard. */
    abstract boolean journalClearedBy(String point);

    /**
     * How many of the table's metadata files its metadata log forgot may be left on disk: floe
     * deletes those of a table of another catalog in batches, from a list in memory that a process
     * takes with it when it ends (MapDbCatalog's commit log lists every one of its own).
     */
    abstract int forgottenMetadataLeftAtMost();

    /** The table's catalog and floe's records of it, opened in this JVM after the host exited. */
    abstract Checked check(Path dir) throws Exception;

    /** What the test reads after the restart, through instances of its own. */
    interface Checked extends AutoCloseable {
        Catalog catalog();

        /** Recovery as at the next start after the grace window, through this instance. */
        Recovery.Result recoverLate();

        /** The entries of one of floe's sections for this catalog. */
        NavigableMap<String, String> entries(String section);

        /** Files the catalog itself references beside the table's metadata (floe's commit log). */
        Set<String> alsoReferenced();
    }

    @TestFactory
    Stream<DynamicTest> killAtEveryPointThenRestart() {
        int rounds = Integer.getInteger("crash.rounds", 1);
        List<DynamicTest> tests = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String point : points()) {
                int r = round;
                tests.add(DynamicTest.dynamicTest(
                        point + " #" + r, () -> crashAndRecover(temp.resolve(point + "-" + r), point, 0, "1s")));
            }
            for (String point : pointsWithALongGrace()) {
                int r = round;
                tests.add(DynamicTest.dynamicTest(
                        point + ", grace 1m #" + r,
                        () -> crashAndRecover(temp.resolve(point + "-grace-" + r), point, 0, "1m")));
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> killAtRandomMomentsThenRestart() {
        int kills = Integer.getInteger("crash.random", 1);
        long seed = Long.getLong("crash.seed", System.nanoTime());
        // printed so a failing kill can be replayed: -Dcrash.seed=<seed>
        System.out.println(getClass().getSimpleName() + " random kills: seed " + seed + " (replay with -Dcrash.seed="
                + seed + ")");
        Random random = new Random(seed);
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 1; i <= kills; i++) {
            long delay = 2_500 + random.nextInt(6_000);
            int n = i;
            tests.add(DynamicTest.dynamicTest(
                    "random kill #" + n + " after " + delay + " ms (seed " + seed + ")",
                    () -> crashAndRecover(temp.resolve("random-" + n), null, delay, "1s")));
        }
        return tests.stream();
    }

    private void crashAndRecover(Path dir, String point, long killAfterMillis, String grace) throws Exception {
        Files.createDirectories(dir);
        Path config = dir.resolve("floe.properties");
        Files.writeString(
                config,
                "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=0s\nfloe.reclaim.grace=" + grace
                        + "\n" + catalog().agentConfig(dir) + extraConfig());

        // 1. the host runs with the agent and dies at the point (or is killed at a random moment)
        List<String> jvm = new ArrayList<>(List.of(Jvm.agentArg(config)));
        jvm.addAll(hostProperties());
        if (point != null) {
            jvm.add("-D" + CrashPoint.PROPERTY + "=" + point);
        }
        Jvm.Run crashed = point != null
                ? Jvm.run(dir.resolve("crash.log"), jvm, hostClassPath(), CrashHost.class.getName(), host(dir, 400, -1))
                : killedAfter(dir.resolve("crash.log"), jvm, dir, killAfterMillis);
        if (point != null) {
            assertThat(crashed.exitCode())
                    .as("halted at %s:\n%s", point, crashed.output())
                    .isEqualTo(CrashPoint.HALT_STATUS);
            assertThat(crashed.output()).contains("halting at crash point " + point);
            crashedAt(point, crashed);
        }
        Set<Long> acked = acked(crashed.output());
        Set<String> uuids = uuids(crashed.output());

        // 2. the same command again: recovery runs, the table is still guarded and rebuilds again
        List<String> again = new ArrayList<>(List.of(Jvm.agentArg(config)));
        again.addAll(hostProperties());
        Jvm.Run restarted = Jvm.run(
                dir.resolve("restart.log"),
                again,
                hostClassPath(),
                CrashHost.class.getName(),
                host(dir, restartCommits(), 3));
        assertThat(restarted.exitCode()).as(restarted.output()).isZero();
        assertThat(restarted.lines("floe: rebuilt db.events"))
                .as(restarted.output())
                .isNotEmpty();
        assertThat(restarted.lines("ERROR")).as(restarted.output()).isEmpty();
        restartedWith(point, restarted);
        // "<point>@<n>" is the n-th time the point is reached: the same point of the flow
        if (point != null && !journalClearedBy(point.replaceFirst("@\\d+$", ""))) {
            assertThat(restarted.lines("recovery discarded unfinished rebuilds"))
                    .as(restarted.output())
                    .hasSize(1);
        }
        acked.addAll(acked(restarted.output()));
        uuids.addAll(uuids(restarted.output()));

        // 3. what is on disk, read after the grace window, once the host is gone
        try (Checked checked = check(dir)) {
            assertThat(checked.recoverLate().scratchTablesDiscarded())
                    .as("unfinished rebuilds left after the restart")
                    .isEmpty();
            assertThat(checked.catalog().listTables(Namespace.of("db")))
                    .extracting(Object::toString)
                    .containsExactly("db.events");
            assertThat(checked.entries(JOURNAL)).as("rebuild journal").isEmpty();
            assertThat(checked.entries(ReclaimJob.SECTION)).as("reclaim jobs").isEmpty();

            Table table = checked.catalog().loadTable(CrashHost.EVENTS);
            assertThat(uuids)
                    .as("the table's UUID, as each run saw it")
                    .containsExactly(table.uuid().toString());
            assertRows(table, acked);
            tableHolds(table);
            Set<String> referenced = referenced(table);
            referenced.addAll(checked.alsoReferenced());
            assertNothingOfFloesUnreferenced(CrashCatalog.warehouse(dir), referenced, table);
        }
    }

    /** The host's arguments: the catalog, its folder, how many commits, and when to stop early. */
    private String[] host(Path dir, int commits, int afterCollapse) {
        return new String[] {
            catalog().argument(),
            dir.toString(),
            Integer.toString(commits),
            Integer.toString(ROWS),
            Integer.toString(afterCollapse)
        };
    }

    private Jvm.Run killedAfter(Path log, List<String> jvm, Path dir, long millis) throws Exception {
        List<String> command = new ArrayList<>();
        command.addAll(Jvm.java());
        command.addAll(jvm);
        command.addAll(List.of("-cp", hostClassPath(), CrashHost.class.getName()));
        command.addAll(List.of(host(dir, 100_000, -1)));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        Thread.sleep(millis);
        process.destroyForcibly(); // SIGKILL
        process.waitFor(1, TimeUnit.MINUTES);
        return new Jvm.Run(process.exitValue(), Files.readString(log));
    }

    private static String hostClassPath() {
        return Path.of("target", "test-classes").toAbsolutePath() + File.pathSeparator + Jvm.SAMPLES_JAR;
    }

    private static Set<Long> acked(String output) {
        Set<Long> ids = new HashSet<>();
        output.lines().filter(l -> l.startsWith("acked ")).forEach(line -> {
            String[] parts = line.split(" ");
            long first = Long.parseLong(parts[1]);
            for (long id = first; id < first + Long.parseLong(parts[2]); id++) {
                ids.add(id);
            }
        });
        return ids;
    }

    private static Set<String> uuids(String output) {
        return output.lines()
                .filter(l -> l.startsWith("table-uuid "))
                .map(l -> l.substring("table-uuid ".length()))
                .collect(Collectors.toCollection(HashSet::new));
    }

    /** Every acknowledged row exactly once, and no other: the ids are dense from 0. */
    private static void assertRows(Table table, Set<Long> acked) throws IOException {
        List<Long> ids = new ArrayList<>();
        try (CloseableIterable<Record> rows =
                IcebergGenerics.read(table).select("id").build()) {
            rows.forEach(r -> ids.add((Long) r.getField("id")));
        }
        assertThat(new HashSet<>(ids)).as("no row twice").hasSize(ids.size());
        assertThat(ids).as("every acknowledged row present").containsAll(acked);
        assertThat(new TreeSet<>(ids))
                .as("ids dense from 0")
                .containsExactlyElementsOf(
                        LongStream.range(0, ids.size()).boxed().collect(Collectors.toList()));
    }

    /**
     * Files floe writes carry "floe" in their names; none may be left that nothing references. The
     * host's own interrupted commit may leave its data file, manifest, manifest list and metadata
     * file behind (as Iceberg does without floe), and so may floe's in-place commit its metadata
     * file (named by Iceberg), numbered as where that run was; besides, metadata files older than the
     * table's metadata log lists, as many as {@link #forgottenMetadataLeftAtMost()}.
     */
    private void assertNothingOfFloesUnreferenced(Path warehouse, Set<String> referenced, Table table)
            throws IOException {
        Set<String> unreferenced = new TreeSet<>(filesOnDisk(warehouse));
        unreferenced.removeAll(referenced);
        assertThat(unreferenced).as("unreferenced files floe wrote").noneMatch(CrashMatrix::namedByFloe);
        assertThat(unreferenced)
                .as("files outside data/ and metadata/")
                .allMatch(f -> f.contains("/data/") || f.contains("/metadata/"));
        assertThat(unreferenced.stream().filter(f -> f.contains("/data/")))
                .as("unreferenced data files: those of the host's commit in flight")
                .hasSizeLessThanOrEqualTo(hostFilesPerCommit());
        assertThat(unreferenced.stream().filter(f -> f.contains("/metadata/") && f.endsWith(".avro")))
                .as("unreferenced manifests and manifest lists")
                .hasSizeLessThanOrEqualTo(hostManifestsPerCommit() + 1);
        TableMetadata current = ((HasTableOperations) table).operations().current();
        int oldestListed = version(current.metadataFileLocation());
        for (TableMetadata.MetadataLogEntry entry : current.previousFiles()) {
            oldestListed = Math.min(oldestListed, version(entry.file()));
        }
        int listedFrom = oldestListed;
        System.out.println(warehouse.getParent().getFileName() + ": left unreferenced by the host's commits "
                + unreferenced.stream()
                        .map(f -> Path.of(f).getFileName().toString())
                        .collect(Collectors.toList())
                + " (the metadata log lists from version " + listedFrom + ")");
        List<String> metadataFiles =
                unreferenced.stream().filter(f -> f.endsWith(".metadata.json")).collect(Collectors.toList());
        // the host commit a kill interrupted leaves its metadata file, numbered where that run was
        // (older than the log once the restarted run went on past it); besides it, only what the
        // log forgot since the last trim
        assertThat(metadataFiles)
                .as(
                        "metadata files the metadata log forgot, left on disk (the log lists from version %d), and one"
                                + " interrupted commit's",
                        listedFrom)
                .hasSizeLessThanOrEqualTo(forgottenMetadataLeftAtMost() + 1);
        assertThat(metadataFiles.stream().filter(f -> version(f) >= listedFrom))
                .as("metadata files of an interrupted commit")
                .hasSizeLessThanOrEqualTo(1);
        assertThat(unreferenced)
                .as("unreferenced files of other kinds")
                .allMatch(f -> f.endsWith(".parquet") || f.endsWith(".avro") || f.endsWith(".metadata.json"));
    }

    /** The version of an Iceberg metadata file, {@code 00012-<uuid>.metadata.json}; -1 if not so named. */
    private static int version(String file) {
        String name = Path.of(file).getFileName().toString();
        int dash = name.indexOf('-');
        try {
            return dash < 0 ? -1 : Integer.parseInt(name.substring(0, dash));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean namedByFloe(String file) {
        return Path.of(file).getFileName().toString().contains("floe");
    }

    /**
     * The files in the warehouse, less floe's catalog file and the checksums Hadoop's local file
     * system keeps beside the files it writes ({@code .<name>.crc}): a checksum counts only when the
     * file it checks is gone.
     */
    private static Set<String> filesOnDisk(Path warehouse) throws IOException {
        try (Stream<Path> paths = Files.walk(warehouse)) {
            return paths.filter(Files::isRegularFile)
                    .filter(p -> !isChecksumOfAFileThere(p))
                    .map(p -> p.toAbsolutePath().toString())
                    .filter(p -> !p.contains("floe-catalog.db"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static boolean isChecksumOfAFileThere(Path file) {
        String name = file.getFileName().toString();
        return name.startsWith(".")
                && name.endsWith(".crc")
                && Files.exists(file.resolveSibling(name.substring(1, name.length() - ".crc".length())));
    }

    /** Every file the table's metadata references: its metadata file and log, manifests, data files. */
    static Set<String> referenced(Table table) throws IOException {
        Set<String> files = new HashSet<>();
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        files.add(metadata.metadataFileLocation());
        metadata.previousFiles().forEach(e -> files.add(e.file()));
        Set<String> manifests = new HashSet<>();
        for (Snapshot snapshot : metadata.snapshots()) {
            files.add(snapshot.manifestListLocation());
            if (snapshot.summary() != null && snapshot.summary().get("floe.layout-map") != null) {
                files.add(snapshot.summary().get("floe.layout-map")); // where the next rebuild finds its map
            }
            for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                if (manifests.add(manifest.path())) {
                    files.add(manifest.path());
                    try (CloseableIterable<? extends ContentFile<?>> entries =
                            manifest.content() == ManifestContent.DATA
                                    ? ManifestFiles.read(manifest, table.io(), metadata.specsById())
                                    : ManifestFiles.readDeleteManifest(manifest, table.io(), metadata.specsById())) {
                        entries.forEach(f -> files.add(f.location()));
                    }
                }
            }
        }
        return localPaths(files);
    }

    static Set<String> localPaths(Set<String> files) {
        return files.stream()
                .map(f -> f.startsWith("file:") ? java.net.URI.create(f).getPath() : f)
                .collect(Collectors.toCollection(HashSet::new));
    }
}
