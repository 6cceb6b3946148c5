package dev.floe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.samples.ChildJvm;
import dev.floe.samples.Upsert;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the upsert part relies on: rebuilds placed in time against a series, and the scan host. */
class UpsertPartTest {
    @TempDir
    Path dir;

    @Test
    void aRebuildEndsAtItsLogLineAndBeginsItsPhasesBeforeAndTheCommitsDuringItAreItsOwn() throws Exception {
        long noon = LocalDate.now()
                .atTime(LocalTime.NOON)
                .atZone(ZoneId.systemDefault())
                .toInstant()
                .toEpochMilli();
        String line = "12:00:10.000 [floe-compactor] INFO RebuildAttempt - floe: rebuilt bench.upserts: 100 snapshots"
                + " -> 1, data files 100 -> 1, kept 0 files of 0 rows as they were, rows 2000 (pruned 0, carried 0 in"
                + " 0 files), written 1 bytes, bytes 2 -> 1, attempts 1, scratch=100ms plan=0ms stream=1000ms"
                + " catch-up=800ms gate-wait=10ms commit=50ms swap=40ms, reclaim job x retires 3 files after the"
                + " grace window, 1 handles reloaded";
        Path series = dir.resolve("series.csv");
        Files.write(
                series,
                List.of(
                        "commit,endEpochMs,latencyMs",
                        "1," + (noon + 7_000) + ",40.0", // before the rebuild began at 12:00:08.000
                        "2," + (noon + 8_020) + ",50.0", // began before it, ended in it: during
                        "3," + (noon + 9_500) + ",120.0", // during
                        "4," + (noon + 10_100) + ",200.0", // began before its end: during
                        "5," + (noon + 10_300) + ",45.0")); // after
        List<RebuildWindows.Commit> commits = RebuildWindows.readSeries(series);

        List<RebuildWindows.Window> windows = RebuildWindows.of(List.of(line), noon);

        assertThat(windows).singleElement().satisfies(w -> {
            assertThat(w.endMs()).isEqualTo(noon + 10_000);
            assertThat(w.startMs()).isEqualTo(noon + 10_000 - 2_000);
        });
        assertThat(RebuildWindows.during(windows, commits)).singleElement().satisfies(d -> {
            assertThat(d.commits()).isEqualTo(3);
            assertThat(d.worst().number()).isEqualTo(4);
        });
        assertThat(RebuildWindows.outside(windows, commits, 0)).containsExactly(40.0, 45.0);
        assertThat(RebuildWindows.outside(windows, commits, 1)).containsExactly(45.0);
    }

    @Test
    void theScanHostReadsWhatTheUpsertHostWroteAndTimesEveryRound() throws Exception {
        Path props = Harness.catalogProperties(dir);
        ChildJvm.Run upsert =
                run(List.of("-Dingest.verify=false"), Upsert.class, props.toString(), "bench.upserts", "8", "5", "30");
        assertThat(upsert.exitCode()).as(upsert.output()).isZero();

        ChildJvm.Run scan = run(List.of(), ScanHost.class, props.toString(), "bench.upserts", "3", "600");

        assertThat(scan.exitCode()).as(scan.output()).isZero();
        Map<String, String> result = scan.result();
        assertThat(result)
                .containsEntry("scans", "3")
                .containsEntry("rows", upsert.result().get("keys"))
                .containsEntry("distinctIds", upsert.result().get("keys"))
                .containsEntry("dataFiles", "8");
        // commit k's equality delete applies to the data files of earlier commits whose ids it may hold
        assertThat(Integer.parseInt(result.get("deleteFiles"))).isBetween(1, 7);
        assertThat(Long.parseLong(result.get("minScanMs")))
                .isLessThanOrEqualTo(Long.parseLong(result.get("scanMs")))
                .isLessThanOrEqualTo(Long.parseLong(result.get("maxScanMs")));
    }

    private ChildJvm.Run run(List<String> jvm, Class<?> main, String... args) throws Exception {
        return new ChildJvm(main.getName(), List.of(args))
                .jvm(jvm)
                .bound(Duration.ofMinutes(5))
                .run(Files.createTempFile(dir, "child", ".log"));
    }
}
