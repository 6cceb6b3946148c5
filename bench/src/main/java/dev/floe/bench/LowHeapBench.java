package dev.floe.bench;

import dev.floe.bench.Figure.Aim;
import dev.floe.samples.ChildJvm;
import dev.floe.samples.Units;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Part 3, low heap: a rebuild at -Xmx128m of a table over 5x that, of incompressible rows
 * ({@link RebuildHost} low-heap): lowheap.csv.
 */
final class LowHeapBench {
    private LowHeapBench() {}

    static void run(Harness h) throws Exception {
        Path dir = h.freshDir("lowheap");
        int files = h.sizes.lowHeapFiles;
        ChildJvm.Run child = h.run(
                "lowheap",
                List.of("-Xmx128m", h.agent(), "-Dfloe.trigger.snapshots=" + (files + 1), "-Dfloe.merge.manifests=0"),
                RebuildHost.class,
                List.of(
                        "low-heap",
                        Harness.catalogProperties(dir).toString(),
                        Long.toString(h.sizes.lowHeapBytes),
                        Integer.toString(files)));
        Map<String, String> r = child.result();
        if (r == null) {
            throw new IllegalStateException(
                    "the low-heap host printed no RESULT (exit " + child.exitCode() + "): " + child.lastError());
        }
        List<String> csv = new ArrayList<>();
        csv.add(
                "ok,rows,dataBytes,maxHeapBytes,dataToHeap,peakHeapBytes,peakLiveHeapBytes,rebuildMs,streamMs,filesAfter,exitCode");
        csv.add(String.join(
                ",",
                r.get("ok"),
                r.get("rows"),
                r.get("dataBytes"),
                r.get("maxHeapBytes"),
                r.get("dataToHeap"),
                r.get("peakHeapBytes"),
                r.get("peakLiveHeapBytes"),
                r.getOrDefault("rebuildMs", ""),
                r.getOrDefault("streamMs", ""),
                r.getOrDefault("filesAfter", ""),
                Integer.toString(child.exitCode())));
        h.write("lowheap.csv", csv);
        boolean ok = "true".equals(r.get("ok"));
        System.out.printf(
                Locale.ROOT,
                "  -Xmx128m rebuild of %s (%sx the heap): %s; peak heap %s used, %s live after GC%n",
                Units.bytes(r.get("dataBytes")),
                r.get("dataToHeap"),
                ok ? "succeeded" : "FAILED " + r.getOrDefault("error", ""),
                Units.bytes(r.get("peakHeapBytes")),
                Units.bytes(r.get("peakLiveHeapBytes")));
        String outcome = ok ? " (succeeded)" : " (FAILED)";
        h.figures.add(ofMaxHeap(
                r, "table on disk / max heap" + outcome, "data", "dataBytes", Aim.atLeast(5, ">= 5, and succeeds")));
        h.figures.add(ofMaxHeap(r, "peak live heap (after GC)", "peak live", "peakLiveHeapBytes", Aim.NONE));
        h.figures.add(ofMaxHeap(r, "peak used heap (sampled)", "peak used", "peakHeapBytes", Aim.NONE));
        if (!ok) {
            h.failures.add(
                    "lowheap: the rebuild at -Xmx128m did not succeed: " + r.getOrDefault("error", child.lastError()));
        }
        h.deleteUnlessKept(dir, null);
    }

    /** The RESULT value {@code key} of the -Xmx128m rebuild, in bytes, against its max heap. */
    private static Figure ofMaxHeap(Map<String, String> r, String name, String label, String key, Aim aim) {
        return Figure.of(
                "3",
                "-Xmx128m rebuild: " + name,
                "B",
                Figure.side(label, Harness.num(r, key)),
                Figure.side("max heap", Harness.num(r, "maxHeapBytes")),
                aim);
    }
}
