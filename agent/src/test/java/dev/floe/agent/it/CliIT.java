package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.catalog.MapDbCatalog;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator CLI ({@code java -jar floe-agent.jar <command>}), each command a real process on a
 * real catalog that the sample ingest filled with many tiny appends. The tests run in order on one
 * catalog: status, dry run, compact, reclaim, a crashed compact and recover, a catalog in use.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CliIT {
    static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
    static final int COMMITS = 30;
    static final int ROWS = 5;
    static final String HOST_LIBS = Jvm.SAMPLES_JAR.getParent().resolve("lib") + File.separator + "*";

    @TempDir
    static Path dir;

    static Path catalogProperties;
    static Path warehouse;

    @BeforeAll
    static void ingestManyTinyAppends() throws Exception {
        warehouse = dir.resolve("warehouse");
        catalogProperties = dir.resolve("catalog.properties");
        Files.writeString(
                catalogProperties, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + warehouse + "\n");
        Jvm.Run ingest = Jvm.run(
                dir.resolve("ingest.log"),
                List.of(),
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                catalogProperties.toString(),
                EVENTS.toString(),
                Integer.toString(COMMITS),
                Integer.toString(ROWS),
                "1");
        assertThat(ingest.exitCode()).as(ingest.output()).isZero();
        assertThat(ingest.resultLong("snapshots")).isEqualTo(COMMITS);
    }

    /** {@code java <jvmArgs> -jar floe-agent.jar --classpath <sample host's libs> <args>}. */
    static Jvm.Run floe(List<String> jvmArgs, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.addAll(List.of("-jar", Jvm.AGENT_JAR.toString(), "--classpath", HOST_LIBS));
        command.addAll(List.of(args));
        return exec(command);
    }

    static Jvm.Run floe(String... args) throws Exception {
        return floe(List.of(), args);
    }

    static Jvm.Run exec(List<String> command) throws Exception {
        Path log = Files.createTempFile(dir, "floe-", ".log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().remove("FLOE_CLASSPATH");
        Process process = builder.start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("floe did not finish: " + command + "\n" + Files.readString(log));
        }
        return new Jvm.Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    static <T> T withCatalog(Function<MapDbCatalog, T> read) throws Exception {
        MapDbCatalog catalog = new MapDbCatalog();
        catalog.initialize("check", Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString()));
        try (catalog) {
            return read.apply(catalog);
        }
    }

    static List<Long> ids(MapDbCatalog catalog) {
        List<Long> ids = new ArrayList<>();
        try (CloseableIterable<Record> rows =
                IcebergGenerics.read(catalog.loadTable(EVENTS)).select("id").build()) {
            rows.forEach(r -> ids.add((Long) r.getField("id")));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return ids;
    }

    static void assertEveryRowOnce() throws Exception {
        List<Long> ids = CliIT.<List<Long>>withCatalog(CliIT::ids);
        assertThat(ids).hasSize(COMMITS * ROWS);
        assertThat(new HashSet<>(ids)).hasSize(COMMITS * ROWS);
    }

    @Test
    @Order(1)
    void everyCommandHasHelpAndTheExitCodes() throws Exception {
        for (String command : List.of("status", "compact", "reclaim", "recover")) {
            Jvm.Run help = floe(command, "--help");
            assertThat(help.exitCode()).as(help.output()).isZero();
            assertThat(help.output())
                    .contains("Usage: floe " + command)
                    .contains("Exit codes:")
                    .contains("3   catalog in use");
        }
        Jvm.Run top = exec(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                Jvm.AGENT_JAR.toString(),
                "--help"));
        assertThat(top.exitCode()).as(top.output()).isZero();
        assertThat(top.output()).contains("status", "compact", "reclaim", "recover", "--classpath");

        Jvm.Run usage = floe("compact", "--catalog", catalogProperties.toString());
        assertThat(usage.exitCode()).as(usage.output()).isEqualTo(2);
        assertThat(usage.output()).contains("Missing required parameter: '<table>'");
    }

    @Test
    @Order(2)
    void withoutTheHostsLibrariesOneLineNamesWhatIsMissing() throws Exception {
        Jvm.Run run = exec(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                Jvm.AGENT_JAR.toString(),
                "status",
                "--catalog",
                catalogProperties.toString()));
        assertThat(run.exitCode()).as(run.output()).isEqualTo(5);
        assertThat(run.output().strip().lines())
                .as(run.output())
                .singleElement()
                .asString()
                .contains("iceberg-core")
                .contains("--classpath")
                .contains("FLOE_CLASSPATH");
    }

    @Test
    @Order(3)
    void statusShowsTheTableAsTextAndJson() throws Exception {
        Jvm.Run text = floe("status", "--catalog", catalogProperties.toString());
        assertThat(text.exitCode()).as(text.output()).isZero();
        assertThat(text.output())
                .contains("db.events")
                .containsPattern("snapshots +" + COMMITS + "\n")
                .containsPattern("data files +" + COMMITS + " \\(" + COMMITS + " small, under 128.0 MiB\\)")
                .containsPattern("metadata bytes +[0-9,]+ \\(current metadata file\\)")
                .containsPattern("rows +" + COMMITS * ROWS + "\n")
                .containsPattern("last rebuild +never")
                .containsPattern("reclaim jobs +none pending");

        // the host's class path form works as well
        Jvm.Run json = Jvm.run(
                dir.resolve("status-json.log"),
                List.of(),
                Jvm.AGENT_JAR + File.pathSeparator + HOST_LIBS,
                "dev.floe.agent.boot.AgentBoot",
                "status",
                "--catalog",
                catalogProperties.toString(),
                "--json",
                "db.*");
        assertThat(json.exitCode()).as(json.output()).isZero();
        JsonNode root = new ObjectMapper().readTree(json.output());
        assertThat(root.get("tables")).hasSize(1);
        JsonNode table = root.get("tables").get(0);
        assertThat(table.get("table").asText()).isEqualTo("db.events");
        assertThat(table.get("snapshots").asInt()).isEqualTo(COMMITS);
        assertThat(table.get("dataFiles").asInt()).isEqualTo(COMMITS);
        assertThat(table.get("smallDataFiles").asInt()).isEqualTo(COMMITS);
        assertThat(table.get("rows").asLong()).isEqualTo(COMMITS * ROWS);
        assertThat(table.get("metadataBytes").asLong()).isPositive();
        assertThat(table.get("lastRebuild").isNull()).isTrue();
        assertThat(table.get("reclaimJobs")).isEmpty();
        assertThat(root.get("unfinishedRebuilds")).isEmpty();
    }

    @Test
    @Order(4)
    void dryRunSaysWhatWouldHappenAndChangesNothing() throws Exception {
        String before = CliIT.<String>withCatalog(c -> c.metadataLocation(EVENTS));
        Jvm.Run run = floe("compact", "--catalog", catalogProperties.toString(), "db.events", "--dry-run");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output())
                .contains("dry run of compact db.events (nothing is changed)")
                .containsPattern("snapshots +" + COMMITS + " -> 1")
                .containsPattern("data files +" + COMMITS + " -> 1 ")
                .containsPattern("rows +" + COMMITS * ROWS + " streamed");
        assertThat(CliIT.<String>withCatalog(c -> c.metadataLocation(EVENTS))).isEqualTo(before);
        assertThat(CliIT.<Map<String, String>>withCatalog(c -> c.durableEntries("floe.reclaim")))
                .isEmpty();
    }

    @Test
    @Order(5)
    void compactRebuildsTheTableAndPrintsProgressAndTheReport() throws Exception {
        Jvm.Run missing = floe("compact", "--catalog", catalogProperties.toString(), "db.nope");
        assertThat(missing.exitCode()).as(missing.output()).isEqualTo(4);
        assertThat(missing.output()).contains("no table db.nope");

        Jvm.Run run = floe("compact", "--catalog", catalogProperties.toString(), "db.events");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output())
                .contains("floe: compact db.events: reading " + COMMITS * ROWS + " rows in " + COMMITS + " data files")
                .contains("floe: compact db.events: writing rebuilt file 1")
                .containsPattern("floe: compact db.events: " + COMMITS * ROWS + "/" + COMMITS * ROWS
                        + " rows \\(100%\\).*rows/s.*all rows written")
                .contains("floe: compact db.events: swapped the rebuilt table into db.events")
                .contains("floe: rebuilt db.events: " + COMMITS + " snapshots -> 1, data files " + COMMITS
                        + " -> 1, rows " + COMMITS * ROWS)
                .containsPattern("reclaim job db\\.events__c\\d+: \\d+ files to delete, due ");
        assertThat(run.output()).doesNotContain("\r");
        assertThat(CliIT.<Integer>withCatalog(
                        c -> ((java.util.Collection<?>) c.loadTable(EVENTS).snapshots()).size()))
                .isEqualTo(1);
        assertThat(CliIT.<Map<String, String>>withCatalog(c -> c.durableEntries("floe.reclaim")))
                .hasSize(1);
        assertEveryRowOnce();

        Jvm.Run status = floe("status", "--catalog", catalogProperties.toString());
        assertThat(status.output())
                .containsPattern("snapshots +1\n")
                .containsPattern("last rebuild +\\d{4}-\\d\\d-\\d\\dT")
                .containsPattern("reclaim jobs +1 pending")
                .containsPattern("db\\.events__c\\d+  due .*\\(in \\d+m");
    }

    @Test
    @Order(6)
    void reclaimNowDeletesTheRetiredFilesAndTheJobIsGone() throws Exception {
        List<String> dataBefore = dataFiles();
        Jvm.Run run = floe("reclaim", "--catalog", catalogProperties.toString(), "--now");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output())
                .containsPattern("floe: ran reclaim job db\\.events__c\\d+ of db\\.events")
                .containsPattern(
                        "floe: reclaim: 1 job run, [1-9][0-9,]* files deleted, 0 kept \\(referenced again\\), 0 pending");
        assertThat(CliIT.<Map<String, String>>withCatalog(c -> c.durableEntries("floe.reclaim")))
                .isEmpty();
        assertThat(dataFiles()).hasSize(1).isSubsetOf(dataBefore);
        assertEveryRowOnce();
    }

    @Test
    @Order(7)
    void recoverDiscardsTheScratchTableACrashedCompactLeft() throws Exception {
        // more appends, then a compact that dies right after committing its scratch table
        Jvm.Run ingest = Jvm.run(
                dir.resolve("ingest2.log"),
                List.of(),
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                catalogProperties.toString(),
                EVENTS.toString(),
                "3",
                Integer.toString(ROWS),
                "1");
        assertThat(ingest.exitCode()).as(ingest.output()).isZero();
        Jvm.Run crashed = floe(
                List.of("-Dfloe.internal.halt-at=rebuild.SCRATCH_COMMITTED"),
                "compact",
                "--catalog",
                catalogProperties.toString(),
                "db.events");
        assertThat(crashed.exitCode()).as(crashed.output()).isEqualTo(137);
        List<String> scratch = CliIT.<List<String>>withCatalog(c -> c.listTables(Namespace.of("db")).stream()
                .map(Object::toString)
                .filter(n -> !n.equals("db.events"))
                .collect(Collectors.toList()));
        assertThat(scratch).singleElement().asString().startsWith("db.events__c");
        assertThat(dataFiles())
                .as("the rebuilt file, 3 new appends, the crashed rebuild's file")
                .hasSize(5);

        Jvm.Run run = floe("recover", "--catalog", catalogProperties.toString());

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output())
                .contains("floe: discarded scratch table " + scratch.get(0)
                        + " and the files it wrote (an unfinished rebuild of db.events)")
                .contains("floe: reclaim: 0 jobs run");
        assertThat(CliIT.<List<TableIdentifier>>withCatalog(c -> c.listTables(Namespace.of("db"))))
                .extracting(Object::toString)
                .containsExactly("db.events");
        assertThat(CliIT.<Map<String, String>>withCatalog(c -> c.durableEntries("floe.rebuild")))
                .isEmpty();
        assertThat(dataFiles()).as("the crashed rebuild's file is deleted").hasSize(4);
        List<Long> ids = CliIT.<List<Long>>withCatalog(CliIT::ids);
        assertThat(ids).hasSize((COMMITS + 3) * ROWS);
        assertThat(new HashSet<>(ids)).hasSize((COMMITS + 3) * ROWS);
    }

    @Test
    @Order(8)
    void aCatalogInUseIsOneLineAndExitCodeThree() throws Exception {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                Path.of("target", "test-classes").toAbsolutePath() + File.pathSeparator + Jvm.SAMPLES_JAR,
                HoldCatalog.class.getName(),
                warehouse.toString());
        Process holder = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            BufferedReader lines =
                    new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(lines.readLine()).isEqualTo("ready");
            for (String[] args : List.of(
                    new String[] {"status", "--catalog", catalogProperties.toString()},
                    new String[] {"compact", "--catalog", catalogProperties.toString(), "db.events"})) {
                Jvm.Run run = floe(args);
                assertThat(run.exitCode()).as(run.output()).isEqualTo(3);
                assertThat(run.output().strip().lines())
                        .as(run.output())
                        .singleElement()
                        .asString()
                        .isEqualTo(
                                "floe: catalog file " + warehouse.resolve("floe-catalog.db") + " is in use by a running"
                                        + " process (the ingest?); stop it first, or read live status over JMX: dev.floe:type=Table,*");
            }
        } finally {
            holder.getOutputStream().close();
            if (!holder.waitFor(1, TimeUnit.MINUTES)) {
                holder.destroyForcibly();
            }
        }
    }

    @Test
    @Order(9)
    void dryRunAndCompactRefuseATableWithAStagedSnapshotAlike() throws Exception {
        TableIdentifier staged = TableIdentifier.of("db", "staged");
        CliIT.<Object>withCatalog(c -> {
            org.apache.iceberg.Table table = c.createTable(
                    staged,
                    new org.apache.iceberg.Schema(org.apache.iceberg.types.Types.NestedField.required(
                            1, "id", org.apache.iceberg.types.Types.LongType.get())));
            org.apache.iceberg.DataFile file = org.apache.iceberg.DataFiles.builder(table.spec())
                    .withPath(warehouse.resolve("never-read.parquet").toString())
                    .withFileSizeInBytes(10)
                    .withRecordCount(1)
                    .build();
            table.newFastAppend().appendFile(file).commit();
            table.newFastAppend()
                    .appendFile(file)
                    .set("wap.id", "audit-1")
                    .stageOnly()
                    .commit();
            return null;
        });
        String before = CliIT.<String>withCatalog(c -> c.metadataLocation(staged));

        Jvm.Run dryRun = floe("compact", "--catalog", catalogProperties.toString(), "db.staged", "--dry-run");
        Jvm.Run compact = floe("compact", "--catalog", catalogProperties.toString(), "db.staged");

        assertThat(dryRun.exitCode()).as(dryRun.output()).isEqualTo(1);
        assertThat(dryRun.output()).contains("would not rebuild: the table has staged (write-audit-publish) snapshot");
        assertThat(compact.exitCode()).as(compact.output()).isEqualTo(1);
        assertThat(compact.output()).contains("has staged (write-audit-publish) snapshot");
        assertThat(CliIT.<String>withCatalog(c -> c.metadataLocation(staged))).isEqualTo(before);
    }

    private static List<String> dataFiles() throws Exception {
        try (Stream<Path> files = Files.walk(warehouse)) {
            return files.filter(Files::isRegularFile)
                    .map(Path::toString)
                    .filter(p -> p.contains(File.separator + "data" + File.separator) && p.endsWith(".parquet"))
                    .collect(Collectors.toList());
        }
    }
}
