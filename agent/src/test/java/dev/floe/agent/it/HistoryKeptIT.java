package dev.floe.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * History kept ({@code floe.history.keep}), end to end, every party its own process: the sample ingest
 * with the agent rebuilds its table every {@value #TRIGGER} snapshots and serves it over the REST
 * endpoint, while three downstream consumers read it incrementally with Iceberg's own {@code
 * IncrementalAppendScan} through {@code RESTCatalog} ({@link IncrementalConsumer}): one following
 * closely, one lagging by several rebuilds, one restarting from its saved position at every poll.
 * Each reads every appended row exactly once across at least five rebuilds.
 */
class HistoryKeptIT {
    static final int TRIGGER = 30;
    static final int REBUILDS = 5;
    static final String TOKEN = "it-token-history";
    static final Duration HANG = Duration.ofMinutes(4);
    static final Predicate<String> REBUILT = l -> l.contains("floe: rebuilt db.events");

    @TempDir
    Path dir;

    @Test
    void incrementalConsumersReadEveryRowOnceAcrossRebuilds() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path hostCatalog = dir.resolve("catalog.properties");
        Files.writeString(hostCatalog, "catalog-impl=dev.floe.catalog.MapDbCatalog\nwarehouse=" + warehouse + "\n");
        RestEndpointIT.createTable(warehouse);
        Path floe = dir.resolve("floe.properties");
        Files.writeString(
                floe,
                "floe.trigger.snapshots=" + TRIGGER + "\nfloe.trigger.min-interval=1s\nfloe.reclaim.grace=0s\n"
                        + "floe.history.keep=1h\nfloe.rest.port=0\nfloe.rest.token=" + TOKEN + "\n");
        Path stop = dir.resolve("stop");
        String[] modes = {"follower", "lagging", "restarting"};
        List<Jvm.Run> consumers = new ArrayList<>();
        Jvm.Run host;
        try (Child ingest = RestEndpointIT.ingest(
                dir, "host", List.of(Jvm.agentArg(floe)), 0, 100, dir.resolve("stop-host"), hostCatalog)) {
            Matcher started =
                    RestEndpointIT.ENDPOINT.matcher(ingest.awaitLine(RestEndpointIT.ENDPOINT.asPredicate(), 1, HANG));
            assertThat(started.find()).isTrue();
            List<Child> children = new ArrayList<>();
            try {
                for (String mode : modes) {
                    children.add(consumer(mode, started.group(1), warehouse, stop));
                }
                ingest.awaitLine(REBUILT, REBUILDS, HANG);
                // after the rebuilds, each consumer polls once more, then the host stops
                for (Child consumer : children) {
                    consumer.awaitLine(
                            l -> l.startsWith("poll "), consumer.count(l -> l.startsWith("poll ")) + 1, HANG);
                }
                Files.createFile(stop);
                Files.createFile(dir.resolve("stop-host"));
                host = ingest.await(HANG);
                Files.createFile(Path.of(stop + ".host-exited"));
                for (Child consumer : children) {
                    consumers.add(consumer.await(HANG));
                }
            } finally {
                for (Child consumer : children) {
                    consumer.close();
                }
            }
        }

        assertThat(host.exitCode()).as(host.output()).isZero();
        assertThat(host.lines("ERROR")).as(host.output()).isEmpty();
        assertThat(host.lines("floe: rebuilt db.events").size()).isGreaterThanOrEqualTo(REBUILDS);
        long commits = host.resultLong("commits");
        List<Long> all = new ArrayList<>();
        LongStream.range(0, commits * RestEndpointIT.ROWS).forEach(all::add);
        for (int i = 0; i < modes.length; i++) {
            Jvm.Run run = consumers.get(i);
            assertThat(run.exitCode()).as(run.output()).isZero();
            assertThat(run.result()).as(modes[i] + "\n" + run.output()).containsEntry("errors", "0");
            assertThat(Long.parseLong(run.result().get("replacedCrossed")))
                    .as(modes[i] + " read across rebuilds")
                    .isGreaterThanOrEqualTo(REBUILDS);
            List<Long> ids = new ArrayList<>();
            for (String line : Files.readAllLines(dir.resolve(modes[i] + ".ids"))) {
                ids.add(Long.parseLong(line));
            }
            ids.sort(null);
            assertThat(ids).as(modes[i] + ": every appended row exactly once").containsExactlyElementsOf(all);
        }
    }

    private Child consumer(String mode, String uri, Path warehouse, Path stop) throws Exception {
        return Child.java(
                mode,
                dir.resolve(mode + ".log"),
                dir,
                List.of(),
                Path.of("target", "test-classes").toAbsolutePath() + File.pathSeparator + Jvm.SAMPLES_JAR,
                IncrementalConsumer.class.getName(),
                uri,
                TOKEN,
                "db.events",
                mode.equals("lagging") ? "6000" : "200",
                mode.equals("restarting") ? "restart" : "follow",
                dir.resolve(mode + ".position").toString(),
                dir.resolve(mode + ".ids").toString(),
                stop.toString(),
                warehouse.toString());
    }
}
