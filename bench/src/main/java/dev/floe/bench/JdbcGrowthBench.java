package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.samples.ChildJvm;
import dev.floe.samples.Units;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part 6, jdbc: the growth of part 1 on a shared catalog: the benchmarks' ingest host on Iceberg's
 * own JdbcCatalog over a SQLite file ({@code clients=1}, {@code jdbc.schema-version=V1}), N
 * single-file commits of 10 rows with {@code newFastAppend()}, unguarded and guarded (the agent,
 * samples/floe.properties, with {@code floe.tables} naming the table: floe rebuilds it in place,
 * through the catalog's own commit). Metadata on disk (every file under the table's metadata/
 * directory), snapshots, data files, rows read back, commit p50/p99: jdbc-growth.csv.
 */
final class JdbcGrowthBench {
    static final String TABLE = "bench.events";
    static final String[] MODES = {"unguarded", "guarded"};

    /** jdbc-growth.csv's columns after the mode: RESULT values of the run. */
    private static final List<String> CSV = List.of(
            "commits",
            "snapshots",
            "metadataBytes",
            "liveMetadataBytes",
            "dataFiles",
            "rows",
            "distinctIds",
            "p50Ms",
            "p99Ms",
            "firstP50Ms",
            "lastP50Ms",
            "lastP99Ms",
            "elapsedMs",
            "scanMs",
            "rebuilds");

    private JdbcGrowthBench() {}

    static void run(Harness h) throws Exception {
        int n = h.sizes.jdbcCommits;
        Map<String, Map<String, String>> results = new LinkedHashMap<>();
        List<String> csv = new ArrayList<>();
        csv.add("mode," + String.join(",", CSV));
        for (String mode : MODES) {
            String name = "jdbc-" + mode + "-" + n;
            Path dir = h.freshDir(name);
            List<String> jvm = new ArrayList<>();
            if (mode.equals("guarded")) {
                jvm.add(h.agent());
                jvm.add("-Dfloe.tables=" + TABLE);
                jvm.add("-Dfloe.state.file=" + dir.resolve("floe-state.db"));
                if (h.sizes.growthTrigger > 0) {
                    jvm.add("-Dfloe.trigger.snapshots=" + h.sizes.growthTrigger);
                }
            }
            jvm.add("-Dbench.mode=fast");
            ChildJvm.Run child = h.run(
                    name,
                    jvm,
                    BenchIngest.class,
                    List.of(Harness.jdbcCatalogProperties(dir).toString(), TABLE, Integer.toString(n), "10", "1"));
            Map<String, String> r = child.requireResult(name);
            r.put("rebuilds", Integer.toString(child.rebuildLines().size()));
            results.put(mode, r);
            csv.add(Harness.csvRow(mode, r, CSV));
            System.out.printf(
                    Locale.ROOT,
                    "  jdbc %-9s N=%-5d metadata %s, %s snapshots, %s data files, %s rows, p50/p99 %s/%s ms, %d rebuilds%n",
                    mode,
                    n,
                    Units.bytes(r.get("metadataBytes")),
                    r.get("snapshots"),
                    r.get("dataFiles"),
                    r.get("rows"),
                    r.get("p50Ms"),
                    r.get("p99Ms"),
                    child.rebuildLines().size());
            h.deleteUnlessKept(dir, null);
        }
        h.write("jdbc-growth.csv", csv);
        addFigures(h, results.get("guarded"), results.get("unguarded"), n);
    }

    /** Each figure guarded against unguarded, from the same run. */
    private static void addFigures(Harness h, Map<String, String> guarded, Map<String, String> unguarded, int n) {
        String at = ", JDBC/SQLite, N=" + n;
        add(h, "metadata on disk" + at, "metadataBytes", "B", guarded, unguarded, Aim.atMost(0.01));
        add(h, "snapshots" + at, "snapshots", "", guarded, unguarded, Aim.NONE);
        add(h, "data files" + at, "dataFiles", "", guarded, unguarded, Aim.NONE);
        double expected = (double) n * 10;
        boolean exact = Harness.num(guarded, "rows") == expected
                && Harness.num(guarded, "distinctIds") == expected
                && Harness.num(unguarded, "rows") == expected;
        add(h, "rows read back" + at, "rows", "", guarded, unguarded, Aim.judged("= 1, every row once", exact));
        add(h, "commit p50" + at, "p50Ms", "ms", guarded, unguarded, Aim.NONE);
        add(h, "commit p99" + at, "p99Ms", "ms", guarded, unguarded, Aim.NONE);
        add(h, "commit p50 last 100" + at, "lastP50Ms", "ms", guarded, unguarded, Aim.NONE);
    }

    private static void add(
            Harness h,
            String name,
            String key,
            String unit,
            Map<String, String> guarded,
            Map<String, String> unguarded,
            Aim aim) {
        h.figures.add(Figure.of(
                "6",
                name,
                unit,
                Figure.side("guarded", Harness.num(guarded, key)),
                Figure.side("unguarded", Harness.num(unguarded, key)),
                aim));
    }
}
