package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.samples.ChildJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Part 12, promotions: what packing settled files into a larger one costs when their row groups are
 * copied as they are ({@code RowGroupCopy}) against re-encoding every row, and against a plain copy
 * of the same bytes on this disk, the most a byte-for-byte pack can do.
 *
 * <p>Per mode, a fresh table of the sample ingest's schema ({@code IncrementalHost build}) is settled
 * by the CLI into files of {@code promotionSettled} with the copy off (so they are floe's own
 * re-encoded files, row groups of {@code floe.rebuild.row-group-rows}; the last holds what was left
 * over, and if that is under half a row group it is re-encoded by the promotion); the data files are copied
 * plainly once ({@code IncrementalHost copy}); then a host with the agent attached ({@code
 * IncrementalHost promote}) commits to the table and floe rebuilds it whole, with a target that holds
 * every file, into one file, with the copy on or off. Promotions run in a long-lived host, whose
 * Parquet classes are loaded and compiled: the same host first has floe promote a table a quarter
 * the size, settled alike. MB/s is the input's bytes over the rebuild's stream phase (the part that
 * reads and writes data); the table's rows are read back after.
 */
final class PromotionBench {
    static final String TABLE = "bench.promoted";
    /** The rows of the two commits that make floe rebuild a table ({@code IncrementalHost promote}). */
    private static final long PROMOTE_COMMIT_ROWS = 20;
    /** Promoted first in the same host, so that the measured promotion runs in a warm JVM. */
    static final String WARM_UP = "bench.warmup";

    private static final Pattern COPIED = Pattern.compile("row groups of (\\d+) files, (\\d+) bytes, copied");

    private PromotionBench() {}

    static void run(Harness h) throws Exception {
        long rows = h.sizes.promotionRows;
        List<String> csv = new ArrayList<>();
        csv.add("mode,inputFiles,inputBytes,streamMs,mbPerS,plainCopyMs,plainCopyMbPerS,copiedFiles,rowsReadBack");
        Map<String, double[]> measured = new LinkedHashMap<>(); // mode -> {MB/s, plain MB/s, files, bytes}
        for (boolean copy : new boolean[] {true, false}) {
            String mode = copy ? "copied" : "re-encoded";
            String name = "promotion-" + mode;
            Path dir = h.freshDir(name);
            Path props = Harness.catalogProperties(dir);
            for (String table : List.of(WARM_UP, TABLE)) {
                long tableRows = table.equals(TABLE) ? rows : rows / 4; // two settled files and more
                h.run(
                                name + "-build-" + table,
                                List.of(),
                                IncrementalHost.class,
                                List.of("build", props.toString(), table, Long.toString(tableRows), "40"))
                        .requireResult(name + "-build");
                h.cli(
                        name + "-settle-" + table,
                        List.of(
                                "-Dfloe.rebuild.target-file-bytes=" + h.sizes.promotionSettled,
                                "-Dfloe.rebuild.row-group-rows=" + h.sizes.promotionRowGroupRows,
                                "-Dfloe.rebuild.copy-row-groups=false"),
                        List.of("compact", "--full", "--catalog", props.toString(), table));
            }
            Map<String, String> plain = h.run(
                            name + "-plain-copy",
                            List.of(),
                            IncrementalHost.class,
                            List.of("copy", props.toString(), TABLE))
                    .requireResult(name + "-plain-copy");
            // whole (full-every=1) and in the rebuild's own stream (major-bytes=off), so its phases say it
            ChildJvm.Run promote = h.run(
                    name + "-promote",
                    List.of(
                            h.agent(),
                            "-Dfloe.trigger.snapshots=2",
                            "-Dfloe.trigger.min-interval=0s",
                            "-Dfloe.rebuild.full-every=1",
                            "-Dfloe.rebuild.major-bytes=off",
                            "-Dfloe.rebuild.target-file-bytes=64GiB",
                            "-Dfloe.rebuild.row-group-rows=" + h.sizes.promotionRowGroupRows,
                            "-Dfloe.rebuild.copy-row-groups=" + copy),
                    IncrementalHost.class,
                    List.of("promote", props.toString(), WARM_UP, TABLE));
            promote.requireResult(name + "-promote");
            String line = promote.rebuildLines().stream()
                    .filter(l -> l.contains("rebuilt " + TABLE + " ") || l.contains("rebuilt " + TABLE + ":"))
                    .reduce((a, b) -> b)
                    .orElseThrow(() -> new IllegalStateException(name + ": floe's log has no rebuild of " + TABLE));
            RebuildReport report = RebuildReport.parse(line);
            Matcher copied = COPIED.matcher(line);
            long copiedFiles = copied.find() ? Long.parseLong(copied.group(1)) : 0;
            long inputFiles = Long.parseLong(plain.get("files"));
            long inputBytes = Long.parseLong(report.bytesBefore());
            // the settle's last file holds what was left over: below half a row group, it is re-encoded
            if (copy ? copiedFiles < inputFiles - 1 || copiedFiles < 2 : copiedFiles != 0) {
                throw new IllegalStateException(mode + ": the promotion copied the row groups of " + copiedFiles
                        + " of " + inputFiles + " files: " + line);
            }
            Map<String, String> scan = h.run(
                            name + "-scan", List.of(), IncrementalHost.class, List.of("scan", props.toString(), TABLE))
                    .requireResult(name + "-scan");
            long filesAfter = Long.parseLong(report.filesAfter());
            if (Long.parseLong(scan.get("rows")) != rows + PROMOTE_COMMIT_ROWS
                    || filesAfter > inputFiles - copiedFiles + 1) {
                throw new IllegalStateException(
                        mode + ": read back " + scan.get("rows") + " rows in " + filesAfter + " files, expected "
                                + (rows + PROMOTE_COMMIT_ROWS) + " in " + (inputFiles - copiedFiles + 1) + " at most");
            }
            long streamMs = Math.max(1, report.phases().getOrDefault("stream", -1L));
            long plainMs = Math.max(1, (long) Harness.num(plain, "copyMs"));
            double mbps = inputBytes / 1e6 / (streamMs / 1e3);
            double plainMbps = Long.parseLong(plain.get("bytes")) / 1e6 / (plainMs / 1e3);
            measured.put(mode, new double[] {mbps, plainMbps, inputFiles, inputBytes});
            csv.add(String.format(
                    Locale.ROOT,
                    "%s,%d,%d,%d,%.1f,%d,%.1f,%d,%s",
                    mode,
                    inputFiles,
                    inputBytes,
                    streamMs,
                    mbps,
                    plainMs,
                    plainMbps,
                    copiedFiles,
                    scan.get("rows")));
            System.out.printf(
                    Locale.ROOT,
                    "  %s: %d files, %.1f MB in %d ms (%.1f MB/s); a plain copy of them %.1f MB/s%n",
                    mode,
                    inputFiles,
                    inputBytes / 1e6,
                    streamMs,
                    mbps,
                    plainMbps);
            h.deleteUnlessKept(dir, null);
        }
        h.write("promotion.csv", csv);
        double[] c = measured.get("copied");
        double[] r = measured.get("re-encoded");
        String what =
                String.format(Locale.ROOT, "promotion of %d settled files (%.0f MB) into one", (int) c[2], c[3] / 1e6);
        h.figures.add(Figure.of(
                "12",
                what + ", row groups copied / a plain copy of the same bytes",
                "MB/s",
                Figure.side("row groups copied", c[0]),
                Figure.side("plain copy", c[1]),
                Aim.atLeast(0.3)));
        h.figures.add(Figure.of(
                "12",
                what + ", row groups copied / re-encoded",
                "MB/s",
                Figure.side("row groups copied", c[0]),
                Figure.side("re-encoded (copy-row-groups=false)", r[0])));
    }
}
