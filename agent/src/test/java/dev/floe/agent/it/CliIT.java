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
import java.util.Set;
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
    static final java.time.Duration HANG = java.time.Duration.ofMinutes(3);
    static final List<String> NO_HISTORY = List.of("-Dfloe.history.keep=0s");
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
        command.addAll(Jvm.java());
        command.addAll(jvmArgs);
        command.addAll(List.of("-jar", Jvm.AGENT_JAR.toString(), "--classpath", HOST_LIBS));
        command.addAll(List.of(args));
        return exec(command);
    }

    /**
     * The CLI with {@code floe.history.keep=0s}: these tests follow what a rebuild retires through
     * reclaim and recovery, and a rebuild that keeps history retires none of the small files (their
     * snapshots stay); {@link #dryRunSaysWhatWouldHappenAndChangesNothing} shows the default too.
     */
    static Jvm.Run floe(String... args) throws Exception {
        return floe(NO_HISTORY, args);
    }

    /** {@link #floe(String...)} with {@code workingDir} as the working directory. */
    static Jvm.Run floeIn(Path workingDir, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.addAll(Jvm.java());
        command.addAll(NO_HISTORY);
        command.addAll(List.of("-jar", Jvm.AGENT_JAR.toString(), "--classpath", HOST_LIBS));
        command.addAll(List.of(args));
        return exec(command, workingDir);
    }

    static Jvm.Run exec(List<String> command) throws Exception {
        return exec(command, null);
    }

    static Jvm.Run exec(List<String> command, Path workingDir) throws Exception {
        Path log = Files.createTempFile(dir, "floe-", ".log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        if (workingDir != null) {
            builder.directory(workingDir.toFile());
        }
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
                .containsPattern("data files +" + COMMITS + " -> about 1 \\(0 kept as they are, " + COMMITS + " packed")
                .containsPattern("rows +" + COMMITS * ROWS + " streamed");
        Jvm.Run kept = floe(List.of(), "compact", "--catalog", catalogProperties.toString(), "db.events", "--dry-run");
        assertThat(kept.exitCode()).as(kept.output()).isZero();
        assertThat(kept.output())
                .as("the default keeps the last hour of history below the rebuilt snapshot")
                .containsPattern(
                        "snapshots +" + COMMITS + " -> 1 on top of " + COMMITS + " kept \\(floe.history.keep\\)");
        Jvm.Run full = floe("compact", "--catalog", catalogProperties.toString(), "db.events", "--dry-run", "--full");
        assertThat(full.exitCode()).as(full.output()).isZero();
        assertThat(full.output()).contains("; a full rebuild)");
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
                        + " -> 1, kept 0 files of 0 rows as they were, rows " + COMMITS * ROWS)
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
                                        + " process (the ingest?); stop it first, or read live status over JMX"
                                        + " (dev.floe:type=Table,*) or, when it serves floe's REST endpoint, with"
                                        + " status --rest <the URI of floe's start line>");
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

    /**
     * A JdbcCatalog on a SQLite file (clients=1, as a host runs it: Iceberg's JdbcCatalog holds a
     * lock on the file while it is open, so each process here runs when no other has it open). The
     * ingest runs with the agent guarding db.events, which rebuilds it and leaves its reclaim jobs in
     * floe's state file; the CLI, given the host's catalog name, sees exactly those records, then
     * compacts in place and reclaims after the grace window.
     */
    @Test
    @Order(10)
    void aJdbcCatalogOnSqliteIsCompactedInPlaceWithTheAgentsRecords() throws Exception {
        Path jdbc = Files.createDirectories(dir.resolve("jdbc"));
        Path properties = jdbc.resolve("jdbc.properties");
        Path state = jdbc.resolve("floe-state.db");
        Files.writeString(
                properties,
                String.join(
                        "\n",
                        "catalog-impl=org.apache.iceberg.jdbc.JdbcCatalog",
                        "uri=jdbc:sqlite:" + jdbc.resolve("catalog.sqlite"),
                        "warehouse=" + jdbc.resolve("warehouse"),
                        "clients=1",
                        "jdbc.schema-version=V1",
                        ""));
        Path agentConfig = writeConfig(
                jdbc.resolve("floe.properties"),
                "floe.tables=db.events",
                "floe.state.file=" + state,
                "floe.trigger.snapshots=10",
                "floe.trigger.min-interval=1h",
                "floe.reclaim.grace=1h");
        // the agent rebuilds once per run (min-interval); a run that ends before its rebuild does is
        // run again: the next one rebuilds on its first commit
        List<String> agentJobs = new ArrayList<>();
        int commits = 0;
        for (int run = 1; run <= 3 && agentJobs.isEmpty(); run++) {
            Jvm.Run ingest = Jvm.run(
                    jdbc.resolve("ingest-" + run + ".log"),
                    List.of(Jvm.agentArg(agentConfig)),
                    Jvm.SAMPLES_JAR.toString(),
                    "dev.floe.samples.Ingest",
                    properties.toString(),
                    EVENTS.toString(),
                    "40",
                    Integer.toString(ROWS),
                    "1");
            assertThat(ingest.exitCode()).as(ingest.output()).isZero();
            commits += 40;
            java.util.regex.Matcher job = java.util.regex.Pattern.compile(
                            "floe: rebuilt db\\.events: .* reclaim job (\\S+) retires")
                    .matcher(ingest.output());
            while (job.find()) {
                agentJobs.add(job.group(1));
            }
        }
        assertThat(agentJobs).as("the agent rebuilt db.events").isNotEmpty();
        SharedTables.Facts before = SharedTables.facts(properties, "ingest", EVENTS);
        assertThat(before.rows()).hasSize(commits * ROWS);

        // the file's name is not the host's catalog name: a JdbcCatalog finds none of its tables
        Jvm.Run wrongName = floe("status", "--catalog", properties.toString(), "--state-file", state.toString());
        assertThat(wrongName.exitCode()).as(wrongName.output()).isEqualTo(4);
        assertThat(wrongName.output())
                .contains("catalog 'jdbc' (JdbcCatalog at jdbc:sqlite:" + jdbc.resolve("catalog.sqlite")
                        + ") lists no table: JdbcCatalog keys tables by catalog name, and this database holds tables"
                        + " under catalog 'ingest'")
                .contains("pass --catalog-name ingest");
        Jvm.Run wrongTable =
                floe("compact", "--catalog", properties.toString(), "--state-file", state.toString(), "db.events");
        assertThat(wrongTable.exitCode()).as(wrongTable.output()).isEqualTo(4);
        assertThat(wrongTable.output())
                .contains("no table db.events in catalog 'jdbc'")
                .contains("this database holds db.events under catalog 'ingest'");

        String[] catalog = {
            "--catalog", properties.toString(), "--catalog-name", "ingest", "--state-file", state.toString()
        };
        // while another process has the SQLite catalog open, the CLI refuses before it opens it (its
        // own instance would lock the host's commits out)
        Jvm.Run held = whileHeld(HoldCatalog.class, properties, () -> floe(concat(new String[] {"status"}, catalog)));
        assertThat(held.exitCode()).as(held.output()).isEqualTo(3);
        assertThat(held.output().strip().lines())
                .as(held.output())
                .singleElement()
                .asString()
                .isEqualTo("floe: the SQLite database jdbc:sqlite:" + jdbc.resolve("catalog.sqlite") + " (from "
                        + properties + ") is open in another process (the ingest?): Iceberg's JdbcCatalog holds a"
                        + " lock on a SQLite file as long as it is open, so one process at a time can use the"
                        + " catalog; stop that process first, or read live status over JMX: dev.floe:type=Table,*");
        Jvm.Run status = floe(concat(new String[] {"status"}, catalog));
        assertThat(status.exitCode()).as(status.output()).isZero();
        assertThat(status.output())
                .contains(
                        "catalog 'ingest' (JdbcCatalog at jdbc:sqlite:" + jdbc.resolve("catalog.sqlite") + "): 1 table")
                .contains("floe's records: " + state + " (catalog key ingest@jdbc:sqlite:"
                        + jdbc.resolve("catalog.sqlite") + ")")
                .containsPattern("snapshots +" + before.snapshots() + "\n")
                .containsPattern("rows +" + count(commits * ROWS) + "\n")
                .containsPattern("last rebuild +\\d{4}-");
        JsonNode json = new ObjectMapper()
                .readTree(
                        floe(concat(new String[] {"status", "--json"}, catalog)).output());
        List<String> pending = new ArrayList<>();
        json.get("tables")
                .get(0)
                .get("reclaimJobs")
                .forEach(j -> pending.add(j.get("id").asText()));
        assertThat(pending).as("the agent's reclaim jobs, seen by the CLI").containsAll(agentJobs);

        Path cliConfig = writeConfig(jdbc.resolve("cli.properties"), "floe.reclaim.grace=0s");
        Jvm.Run compact =
                floe(concat(new String[] {"compact", "--config", cliConfig.toString()}, catalog, EVENTS.toString()));
        assertThat(compact.exitCode()).as(compact.output()).isZero();
        assertThat(compact.output())
                .contains("floe: compact db.events: committed the rebuilt table in place")
                .contains("floe: rebuilt db.events: " + before.snapshots() + " snapshots -> 1");
        SharedTables.Facts after = SharedTables.facts(properties, "ingest", EVENTS);
        assertThat(after.snapshots()).isEqualTo(1);
        assertThat(after.uuid()).isEqualTo(before.uuid());
        assertThat(after.rows()).as("every row, field by field").isEqualTo(before.rows());
        assertThat(after.dataFiles()).hasSize(1);

        // the grace window of the CLI's job (0s) has passed, the agent's (1h) has not
        Jvm.Run reclaim = floe(concat(new String[] {"reclaim"}, catalog));
        assertThat(reclaim.exitCode()).as(reclaim.output()).isZero();
        assertThat(reclaim.output()).containsPattern("floe: ran reclaim job db\\.events__c\\d+ of db\\.events");
        for (String job : agentJobs) {
            assertThat(reclaim.output()).contains("floe: reclaim job " + job + " of db.events is not due yet");
        }
        Jvm.Run reclaimAll = floe(concat(new String[] {"reclaim", "--now"}, catalog));
        assertThat(reclaimAll.exitCode()).as(reclaimAll.output()).isZero();
        assertThat(reclaimAll.output()).contains(", 0 pending");
        assertThat(SharedTables.dataFilesOnDisk(jdbc.resolve("warehouse")))
                .as("only the live table's files are left")
                .isEqualTo(after.dataFiles());
        assertThat(SharedTables.facts(properties, "ingest", EVENTS).rows()).isEqualTo(before.rows());

        Jvm.Run statusAfter = floe(concat(new String[] {"status"}, catalog));
        assertThat(statusAfter.output())
                .containsPattern("snapshots +1\n")
                .containsPattern("data files +1 ")
                .containsPattern("reclaim jobs +none pending");
    }

    /**
     * A HadoopCatalog named by {@code type=hadoop}, the state file at its default (floe-state.db in
     * the working directory): status, a refusal while another process holds the state file, compact
     * in place, reclaim after the grace window, and recover after a compact killed mid-rebuild.
     */
    @Test
    @Order(11)
    void aHadoopCatalogIsCompactedReclaimedAndRecovered() throws Exception {
        Path hadoop = Files.createDirectories(dir.resolve("hadoop"));
        Path warehouse = hadoop.resolve("warehouse");
        Path host = hadoop.resolve("host.properties");
        Files.writeString(host, "catalog-impl=org.apache.iceberg.hadoop.HadoopCatalog\nwarehouse=" + warehouse + "\n");
        Path properties = hadoop.resolve("hadoop.properties");
        Files.writeString(properties, "type=hadoop\nwarehouse=" + warehouse + "\n");
        Path state = hadoop.resolve("floe-state.db");
        ingestInto(host, hadoop.resolve("ingest.log"), COMMITS);
        SharedTables.Facts before = SharedTables.facts(properties, "hadoop", EVENTS);
        assertThat(before.snapshots()).isEqualTo(COMMITS);

        Jvm.Run status = floeIn(hadoop, "status", "--catalog", properties.toString());
        assertThat(status.exitCode()).as(status.output()).isZero();
        assertThat(status.output())
                .contains("catalog 'hadoop' (HadoopCatalog at " + warehouse + "): 1 table")
                .contains("floe's records: none (no state file at " + state + ";")
                .containsPattern("snapshots +" + COMMITS + "\n")
                .containsPattern("rows +" + COMMITS * ROWS + "\n");

        long[] holderPid = new long[1];
        Jvm.Run inUse = whileHeld(HoldStateFile.class, state, holder -> {
            holderPid[0] = holder.pid();
            return floeIn(hadoop, "compact", "--catalog", properties.toString(), "db.events");
        });
        assertThat(inUse.exitCode()).as(inUse.output()).isEqualTo(3);
        assertThat(inUse.output().strip().lines())
                .as(inUse.output())
                .singleElement()
                .asString()
                .startsWith("floe: state file " + state + " is in use by process " + holderPid[0] + " (")
                .contains("a process with floe's agent holds it while it runs")
                .contains("stop that process first");

        Path cliConfig = writeConfig(hadoop.resolve("cli.properties"), "floe.reclaim.grace=0s");
        Jvm.Run compact = floeIn(
                hadoop, "compact", "--catalog", properties.toString(), "--config", cliConfig.toString(), "db.events");
        assertThat(compact.exitCode()).as(compact.output()).isZero();
        assertThat(compact.output()).contains("floe: compact db.events: committed the rebuilt table in place");
        SharedTables.Facts after = SharedTables.facts(properties, "hadoop", EVENTS);
        assertThat(after.snapshots()).isEqualTo(1);
        assertThat(after.uuid()).isEqualTo(before.uuid());
        assertThat(after.rows()).as("every row, field by field").isEqualTo(before.rows());

        Jvm.Run reclaim = floeIn(hadoop, "reclaim", "--catalog", properties.toString());
        assertThat(reclaim.exitCode()).as(reclaim.output()).isZero();
        assertThat(reclaim.output())
                .containsPattern(
                        "floe: reclaim: 1 job run, [1-9][0-9,]* files deleted, 0 kept \\(referenced again\\), 0 pending");
        assertThat(SharedTables.dataFilesOnDisk(warehouse)).isEqualTo(after.dataFiles());
        Jvm.Run statusAfter = floeIn(hadoop, "status", "--catalog", properties.toString());
        assertThat(statusAfter.output())
                .contains("floe's records: " + state + " (catalog key hadoop@" + warehouse + ")")
                .containsPattern("snapshots +1\n")
                .containsPattern("data files +1 ")
                .containsPattern("reclaim jobs +none pending");

        // a compact killed once its rebuilt file is written: recover deletes that file, keeps the table's
        ingestInto(host, hadoop.resolve("ingest2.log"), 3);
        Set<String> live = SharedTables.facts(properties, "hadoop", EVENTS).dataFiles();
        Jvm.Run crashed = floe(
                List.of("-Dfloe.internal.halt-at=rebuild.ROWS_WRITTEN"),
                "compact",
                "--catalog",
                properties.toString(),
                "--state-file",
                state.toString(),
                "db.events");
        assertThat(crashed.exitCode()).as(crashed.output()).isEqualTo(137);
        assertThat(SharedTables.dataFilesOnDisk(warehouse)).hasSize(live.size() + 1);
        Jvm.Run unfinished = floeIn(hadoop, "status", "--catalog", properties.toString());
        assertThat(unfinished.output()).containsPattern("db\\.events__c\\d+ \\(rebuilding db\\.events\\)");
        Jvm.Run recover = floeIn(hadoop, "recover", "--catalog", properties.toString());
        assertThat(recover.exitCode()).as(recover.output()).isZero();
        assertThat(recover.output())
                .containsPattern(
                        "floe: discarded the files the unfinished rebuild db\\.events__c\\d+ of db\\.events wrote");
        assertThat(SharedTables.dataFilesOnDisk(warehouse)).isEqualTo(live);
        assertThat(SharedTables.facts(properties, "hadoop", EVENTS).rows()).hasSize((COMMITS + 3) * ROWS);
    }

    /** What {@code run} returns while a child JVM {@code holder} holds {@code what} open. */
    private static Jvm.Run whileHeld(Class<?> holder, Path what, HeldRun run) throws Exception {
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        Path.of("target", "test-classes").toAbsolutePath() + File.pathSeparator + Jvm.SAMPLES_JAR,
                        holder.getName(),
                        what.toString())
                .redirectErrorStream(true)
                .start();
        try {
            BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line;
            do {
                line = lines.readLine(); // past the holder's own log lines
            } while (line != null && !line.equals("ready"));
            assertThat(line).as("the holder is ready").isEqualTo("ready");
            return run.run(process);
        } finally {
            process.getOutputStream().close();
            if (!process.waitFor(1, TimeUnit.MINUTES)) {
                process.destroyForcibly();
            }
        }
    }

    private static Jvm.Run whileHeld(Class<?> holder, Path what, java.util.concurrent.Callable<Jvm.Run> run)
            throws Exception {
        return whileHeld(holder, what, process -> run.call());
    }

    @FunctionalInterface
    interface HeldRun {
        Jvm.Run run(Process holder) throws Exception;
    }

    /**
     * While an ingest with the agent holds the catalog file and serves the REST endpoint (with a
     * token), status reads the table over it; the same command without --rest is exit 3.
     */
    @Test
    @Order(12)
    void statusReadsAHeldCatalogOverTheRestEndpointItsProcessServes() throws Exception {
        Path restWarehouse = dir.resolve("rest-warehouse");
        Path props = dir.resolve("rest-catalog.properties");
        Files.writeString(props, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + restWarehouse + "\n");
        Path token = dir.resolve("rest-token");
        Files.writeString(token, "cli-token\n");
        Path floe = dir.resolve("rest-floe.properties");
        Files.writeString(floe, "floe.rest.port=0\nfloe.rest.token-file=" + token + "\n");
        Path stop = dir.resolve("rest-stop");
        try (Child host = Child.java(
                "ingest serving REST",
                dir.resolve("rest-ingest.log"),
                dir,
                List.of(Jvm.agentArg(floe), "-Dingest.stop-file=" + stop, "-Dingest.pace-ms=50"),
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                props.toString(),
                EVENTS.toString(),
                "100000",
                Integer.toString(ROWS),
                "1")) {
            java.util.regex.Matcher started = java.util.regex.Pattern.compile(
                            "serves the Iceberg REST catalog at (http://\\S+/) ")
                    .matcher(host.awaitLine(l -> l.contains("serves the Iceberg REST catalog at"), 1, HANG));
            assertThat(started.find()).isTrue();
            host.awaitLine(l -> l.contains("the REST catalog endpoint serves MapDbCatalog"), 1, HANG);
            Jvm.Run held = floe("status", "--catalog", props.toString());
            assertThat(held.exitCode()).as(held.output()).isEqualTo(3);

            Jvm.Run text = floe(
                    "status",
                    "--catalog",
                    props.toString(),
                    "--rest",
                    started.group(1),
                    "--rest-token-file",
                    token.toString());
            assertThat(text.exitCode()).as(text.output()).isZero();
            assertThat(text.output())
                    .contains("over the REST catalog endpoint at " + started.group(1))
                    .contains("reclaim jobs and unfinished rebuilds are in the file and not shown")
                    .contains("db.events")
                    .containsPattern("snapshots +[1-9][0-9,]*\n")
                    .containsPattern("rows +[1-9][0-9,]*\n")
                    .doesNotContain("WARN");

            Jvm.Run json = floe(
                    "status",
                    "--catalog",
                    props.toString(),
                    "--rest",
                    started.group(1),
                    "--rest-token-file",
                    token.toString(),
                    "--json");
            assertThat(json.exitCode()).as(json.output()).isZero();
            JsonNode root = new ObjectMapper().readTree(json.output());
            assertThat(root.get("over").asText()).isEqualTo("rest");
            JsonNode table = root.get("tables").get(0);
            assertThat(table.get("table").asText()).isEqualTo("db.events");
            assertThat(table.get("rows").asLong())
                    .isPositive()
                    .isEqualTo(table.get("rows").asLong() / ROWS * ROWS);

            Jvm.Run noToken = floe("status", "--catalog", props.toString(), "--rest", started.group(1));
            assertThat(noToken.exitCode()).as(noToken.output()).isEqualTo(1);
            assertThat(noToken.output()).contains("--rest-token-file");
            Files.createFile(stop);
            Jvm.Run run = host.await(HANG);
            assertThat(run.exitCode()).as(run.output()).isZero();
        }
    }

    private static void ingestInto(Path catalogProperties, Path log, int commits) throws Exception {
        Jvm.Run ingest = Jvm.run(
                log,
                List.of(),
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                catalogProperties.toString(),
                EVENTS.toString(),
                Integer.toString(commits),
                Integer.toString(ROWS),
                "1");
        assertThat(ingest.exitCode()).as(ingest.output()).isZero();
    }

    private static Path writeConfig(Path file, String... lines) throws Exception {
        Files.writeString(file, String.join("\n", lines) + "\n");
        return file;
    }

    private static String[] concat(String[] first, String[] second, String... last) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(second));
        all.addAll(List.of(last));
        return all.toArray(new String[0]);
    }

    private static String count(long n) {
        return String.format(java.util.Locale.ROOT, "%,d", n);
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
