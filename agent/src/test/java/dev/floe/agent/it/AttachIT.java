package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.tools.attach.VirtualMachine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent attached to an ingest JVM that is already running (Agent-Class) guards it from then on. */
class AttachIT {
    @TempDir
    Path dir;

    @Test
    void attachedToARunningIngestItGuardsFromThenOn() throws Exception {
        Path catalog = dir.resolve("catalog.properties");
        Files.writeString(
                catalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + dir.resolve("warehouse") + "\n");
        Path config = dir.resolve("floe.properties");
        Files.writeString(config, "floe.trigger.snapshots=40\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=1s\n");
        Path log = dir.resolve("ingest.log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                Jvm.SAMPLES_JAR.toString(),
                "dev.floe.samples.Ingest",
                catalog.toString(),
                "db.events",
                "400",
                "3",
                "1"));
        Process ingest = new ProcessBuilder(command).redirectErrorStream(true).start();
        // the host's output, copied to the log as it comes; the latch opens at its first progress line
        java.util.concurrent.CountDownLatch committing = new java.util.concurrent.CountDownLatch(1);
        Thread copier = new Thread(() -> {
            try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(ingest.getInputStream()));
                    var out = Files.newBufferedWriter(log)) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    out.write(line);
                    out.newLine();
                    out.flush();
                    if (line.contains("progress commits=")) {
                        committing.countDown();
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        copier.start();

        // wait until the unguarded host has committed a while, then attach
        assertThat(committing.await(2, TimeUnit.MINUTES))
                .as("the host reported no progress within 2 minutes:\n" + Files.readString(log))
                .isTrue();
        VirtualMachine vm = VirtualMachine.attach(Long.toString(ingest.pid()));
        try {
            vm.loadAgent(Jvm.AGENT_JAR.toString(), config.toString());
        } finally {
            vm.detach();
        }
        assertThat(ingest.waitFor(5, TimeUnit.MINUTES)).isTrue();
        copier.join();
        Jvm.Run run = new Jvm.Run(ingest.exitValue(), Files.readString(log));

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines("[floe] INFO floe ")).as(run.output()).hasSize(1);
        assertThat(run.lines("floe: rebuilt db.events")).as(run.output()).isNotEmpty();
        assertThat(run.resultLong("rows")).isEqualTo(1200);
        assertThat(run.resultLong("distinctIds")).isEqualTo(1200);
        assertThat(run.resultLong("sinceRewrite")).isLessThan(400);
    }
}
