package dev.floe.runtime.rebuild;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Wall time per phase of one rebuild attempt, each measured from the end of the one before. */
final class RebuildPhases {
    private final Map<String, Duration> phases = new LinkedHashMap<>();
    private long mark = System.nanoTime();

    void end(String phase) {
        long now = System.nanoTime();
        // a phase ended again (an install made again) adds on: the phases still sum to the wall time
        phases.merge(phase, Duration.ofNanos(now - mark), Duration::plus);
        mark = now;
    }

    Map<String, Duration> all() {
        return phases;
    }
}
