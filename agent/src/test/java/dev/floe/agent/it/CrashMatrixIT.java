package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.catalog.MapDbCatalog;
import dev.floe.runtime.CrashPoint;
import dev.floe.runtime.Recovery;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at every step of a rebuild, and at random moments, of a real JVM running a host with the
 * agent; then the same command again. Afterwards: every acknowledged row is present exactly once,
 * no scratch table is left, no file floe wrote is left unreferenced, and the table rebuilds again.
 *
 * <p>CI runs every point once and two random kills. {@code -Dcrash.rounds=3 -Dcrash.random=20} runs
 * every point three times and twenty random kills (see README, "Guarantees").
 */
class CrashMatrixIT {
    static final int TRIGGER = 12;
    static final int ROWS = 3;
    static final List<String> POINTS = List.of(
            "rebuild.FILE_STARTED",
            "rebuild.SCRATCH_CREATED",
            "rebuild.SCRATCH_COMMITTED",
            "catalog.swap-uncommitted",
            "rebuild.SWAPPED",
            "reclaim.deleting");

    @TempDir
    Path temp;

    @TestFactory
    Stream<DynamicTest> killAtEveryPointThenRestart() {
        int rounds = Integer.getInteger("crash.rounds", 1);
        List<DynamicTest> tests = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String point : POINTS) {
                int r = round;
                tests.add(DynamicTest.dynamicTest(
                        point + " #" + r, () -> crashAndRecover(temp.resolve(point + "-" + r), point, 0)));
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> killAtRandomMomentsThenRestart() {
        int kills = Integer.getInteger("crash.random", 2);
        long seed = Long.getLong("crash.seed", System.nanoTime());
        // printed so a failing kill can be replayed: -Dcrash.seed=<seed>
        System.out.println("CrashMatrixIT random kills: seed " + seed + " (replay with -Dcrash.seed=" + seed + ")");
        Random random = new Random(seed);
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 1; i <= kills; i++) {
            long delay = 2_500 + random.nextInt(6_000);
            int n = i;
            tests.add(DynamicTest.dynamicTest(
                    "random kill #" + n + " after " + delay + " ms (seed " + seed + ")",
                    () -> crashAndRecover(temp.resolve("random-" + n), null, delay)));
        }
        return tests.stream();
    }

    private void crashAndRecover(Path dir, String point, long killAfterMillis) throws Exception {
        Files.createDirectories(dir);
        Path warehouse = dir.resolve("warehouse");
        Path config = dir.resolve("floe.properties");
        Files.writeString(
                config,
                "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=0s\nfloe.reclaim.grace=1s\n");

        // 1. the host runs with the agent and dies at the point (or is killed at a random moment)
        List<String> jvm = new ArrayList<>(List.of(Jvm.agentArg(config)));
        if (point != null) {
            jvm.add("-D" + CrashPoint.PROPERTY + "=" + point);
        }
        Jvm.Run crashed = point != null
                ? Jvm.run(
                        dir.resolve("crash.log"),
                        jvm,
                        hostClassPath(),
                        CrashHost.class.getName(),
                        warehouse.toString(),
                        "400",
                        Integer.toString(ROWS),
                        "-1")
                : killedAfter(dir.resolve("crash.log"), jvm, warehouse, killAfterMillis);
        if (point != null) {
            assertThat(crashed.exitCode())
                    .as("halted at %s:\n%s", point, crashed.output())
                    .isEqualTo(CrashPoint.HALT_STATUS);
            assertThat(crashed.output()).contains("halting at crash point " + point);
        }
        Set<Long> acked = acked(crashed.output());

        // 2. the same command again: recovery runs, the table is still guarded and rebuilds again
        Jvm.Run restarted = Jvm.run(
                dir.resolve("restart.log"),
                List.of(Jvm.agentArg(config)),
                hostClassPath(),
                CrashHost.class.getName(),
                warehouse.toString(),
                "200",
                Integer.toString(ROWS),
                "3");
        assertThat(restarted.exitCode()).as(restarted.output()).isZero();
        assertThat(restarted.lines("floe: rebuilt db.events"))
                .as(restarted.output())
                .isNotEmpty();
        assertThat(restarted.lines("ERROR")).as(restarted.output()).isEmpty();
        if (point != null && !point.equals("rebuild.SWAPPED") && !point.equals("reclaim.deleting")) {
            assertThat(restarted.lines("recovery discarded unfinished rebuilds"))
                    .as(restarted.output())
                    .hasSize(1);
        }
        acked.addAll(acked(restarted.output()));

        // 3. what is on disk, read after the grace window
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("check", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
        try (catalog) {
            Recovery.Result late = Recovery.run(catalog, Instant.now().plus(Duration.ofMinutes(1)));
            assertThat(late.scratchTablesDiscarded())
                    .as("scratch tables left after the restart")
                    .isEmpty();
            assertThat(catalog.listTables(Namespace.of("db")))
                    .extracting(Object::toString)
                    .containsExactly("db.events");
            assertThat(catalog.durableEntries("floe.rebuild")).isEmpty();
            assertThat(catalog.durableEntries("floe.reclaim")).isEmpty();

            Table table = catalog.loadTable(CrashHost.EVENTS);
            List<Long> ids = new ArrayList<>();
            try (CloseableIterable<Record> rows =
                    IcebergGenerics.read(table).select("id").build()) {
                rows.forEach(r -> ids.add((Long) r.getField("id")));
            }
            assertThat(new HashSet<>(ids)).as("no row twice").hasSize(ids.size());
            assertThat(ids).as("every acknowledged row present").containsAll(acked);
            assertThat(new TreeSet<>(ids))
                    .as("ids dense from 0")
                    .containsExactlyElementsOf(java.util.stream.LongStream.range(0, ids.size())
                            .boxed()
                            .collect(Collectors.toList()));

            Set<String> unreferenced = new TreeSet<>(filesOnDisk(warehouse));
            unreferenced.removeAll(referenced(catalog, table));
            // the host's own interrupted commit may leave its data file, manifest, manifest list and
            // metadata file behind (as Iceberg does without floe); nothing floe wrote may be left
            List<String> data =
                    unreferenced.stream().filter(f -> f.contains("/data/")).collect(Collectors.toList());
            List<String> metadata =
                    unreferenced.stream().filter(f -> f.contains("/metadata/")).collect(Collectors.toList());
            assertThat(data)
                    .as("unreferenced data files")
                    .noneMatch(f -> f.contains("floe-rebuild"))
                    .hasSizeLessThanOrEqualTo(1);
            assertThat(metadata)
                    .as("unreferenced metadata files")
                    .noneMatch(f -> f.contains("floe"))
                    .hasSizeLessThanOrEqualTo(3);
            assertThat(unreferenced)
                    .as("files outside data/ and metadata/")
                    .allMatch(f -> f.contains("/data/") || f.contains("/metadata/"));
        }
    }

    private Jvm.Run killedAfter(Path log, List<String> jvm, Path warehouse, long millis) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvm);
        command.addAll(List.of(
                "-cp",
                hostClassPath(),
                CrashHost.class.getName(),
                warehouse.toString(),
                "100000",
                Integer.toString(ROWS),
                "-1"));
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

    private static Set<String> filesOnDisk(Path warehouse) throws IOException {
        return TableFiles.onDisk(warehouse).stream()
                .filter(p -> !p.contains("floe-catalog.db"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Every file the live table references, and every metadata file since its last swap. */
    static Set<String> referenced(MapDbCatalog catalog, Table table) throws IOException {
        Set<String> files = new HashSet<>(TableFiles.referenced(table));
        catalog.commitLog(CrashHost.EVENTS).values().forEach(f -> files.add(TableFiles.localPath(f)));
        return files;
    }
}
