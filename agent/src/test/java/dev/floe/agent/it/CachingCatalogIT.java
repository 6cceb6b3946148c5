package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle a host holds through Iceberg's CachingCatalog (over a JdbcCatalog) is tracked and
 * reloaded after an in-place rebuild: without a refresh of its own, the host's cached object shows
 * the rebuilt table with every row.
 */
class CachingCatalogIT {
    @TempDir
    Path dir;

    @Test
    void theCachedHandleShowsTheRebuiltTableWithoutARefresh() throws Exception {
        Path floe = dir.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.tables=host.db.events\nfloe.trigger.snapshots=40\nfloe.trigger.min-interval=0s\n"
                        + "floe.reclaim.grace=1s\nfloe.state.file=" + dir.resolve("floe-state.db") + "\n");
        Jvm.Run run = Jvm.run(
                dir.resolve("host.log"),
                List.of(Jvm.agentArg(floe)),
                Path.of("target", "test-classes").toAbsolutePath() + File.pathSeparator + Jvm.SAMPLES_JAR,
                CachingHost.class.getName(),
                dir.toString(),
                "40",
                "120");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("floe: rebuilt db.events: 40 snapshots -> 1"))
                .as(run.output())
                .hasSize(1);
        assertThat(run.lines("handles reloaded")).as(run.output()).hasSize(1);
        assertThat(run.lines("cached current=replace rows=120"))
                .as(run.output())
                .hasSize(1);
        assertThat(run.lines("same handle=true")).as(run.output()).hasSize(1);
        assertThat(run.lines("ERROR")).as(run.output()).isEmpty();
        assertThat(run.lines("WARN")).as(run.output()).noneMatch(line -> line.contains("floe"));
    }
}
