package dev.floe.runtime.install;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.EnvironmentContext;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.TableMetadata;

/**
 * What writers keep in snapshot summaries, carried from the snapshots a rebuild replaces onto the
 * rebuilt table, so that exactly-once writers find their progress again after a rebuild.
 *
 * <p>Exactly-once sinks record what they committed in the summary of each snapshot they write and
 * find it again by walking the snapshot ancestry from the head of {@code main}: Flink's committer
 * ({@code flink.job-id}, {@code flink.operator-id}, {@code flink.max-committed-checkpoint-id}),
 * Iceberg's Kafka Connect sink ({@code kafka.connect.offsets.<topic>.<group>}, {@code
 * kafka.connect.commit-id}, {@code kafka.connect.vtts}), Spark Structured Streaming ({@code
 * spark.sql.streaming.queryId}, {@code spark.sql.streaming.epochId}). A rebuilt table whose one
 * snapshot lacked them would make such a writer commit again what it had already committed.
 *
 * <p>The rule: every summary key that is not one of Iceberg's own (statistics, environment,
 * write-audit-publish) nor floe's takes its value from the newest replaced snapshot that has it.
 * Keys that only make sense together, one writer's identity and its progress, are taken together
 * from one snapshot: a Flink committer is {@code (flink.job-id, flink.operator-id)}, a Spark
 * streaming query is its {@code queryId}. One snapshot has room for one such writer per family;
 * when the replaced snapshots hold several (two Flink jobs writing one table), the newest goes on
 * the rebuilt snapshot and each older one on an empty marker snapshot below it, newest nearest, so
 * that walking the ancestry still finds every writer's own progress. At most {@code maxWriters}
 * writers per family are kept; older ones are dropped and named by {@link #dropped()}.
 */
final class WriterMarkers {
    /** Keys of writers whose identity and progress must come from one snapshot. */
    private record Family(String name, List<String> identity, List<String> progress) {
        boolean has(Map<String, String> summary) {
            return summary.containsKey(identity.get(0));
        }

        List<String> identityOf(Map<String, String> summary) {
            List<String> values = new ArrayList<>();
            identity.forEach(key -> values.add(summary.get(key)));
            return values;
        }

        boolean owns(String key) {
            return identity.contains(key) || progress.contains(key);
        }
    }

    private static final List<Family> FAMILIES = List.of(
            new Family(
                    "Flink committer",
                    List.of("flink.job-id", "flink.operator-id"),
                    List.of("flink.max-committed-checkpoint-id")),
            new Family(
                    "Spark streaming query",
                    List.of("spark.sql.streaming.queryId"),
                    List.of("spark.sql.streaming.epochId")));

    private static final Set<String> ICEBERG_KEYS = icebergKeys();
    private static final List<String> ICEBERG_PREFIXES =
            List.of(SnapshotSummary.CHANGED_PARTITION_PREFIX, SnapshotSummary.EXTRA_METADATA_PREFIX, "floe.");

    private final Map<String, String> head;
    private final List<Map<String, String>> below;
    private final List<String> dropped;

    private WriterMarkers(Map<String, String> head, List<Map<String, String>> below, List<String> dropped) {
        this.head = head;
        this.below = below;
        this.dropped = dropped;
    }

    /**
     * The markers of the snapshots on {@code main} of {@code current}, newest first, that the rebuilt
     * snapshot replaces: a writer or key found in a snapshot of the history the rebuilt one
     * goes on top of, {@code keptHistory}, is found there by the writer's own walk, and needs no marker.
     */
    static WriterMarkers of(TableMetadata current, int maxWriters, Set<Long> keptHistory) {
        Map<String, String> free = new LinkedHashMap<>();
        Set<String> inKept = new java.util.HashSet<>(); // keys a kept snapshot holds: found there
        Map<Family, List<Map<String, String>>> writers = new LinkedHashMap<>();
        Map<Family, Set<List<String>>> seen = new LinkedHashMap<>();
        List<String> dropped = new ArrayList<>();
        Set<String> environment = EnvironmentContext.get().keySet();
        for (Snapshot snapshot = current.currentSnapshot();
                snapshot != null;
                snapshot = snapshot.parentId() == null ? null : current.snapshot(snapshot.parentId())) {
            Map<String, String> summary = snapshot.summary() == null ? Map.of() : snapshot.summary();
            if (keptHistory.contains(snapshot.snapshotId())) {
                for (Family family : FAMILIES) {
                    if (family.has(summary)) {
                        seen.computeIfAbsent(family, f -> new java.util.HashSet<>())
                                .add(family.identityOf(summary));
                    }
                }
                inKept.addAll(summary.keySet());
                continue;
            }
            for (Family family : FAMILIES) {
                if (family.has(summary)
                        && seen.computeIfAbsent(family, f -> new java.util.HashSet<>())
                                .add(family.identityOf(summary))) {
                    List<Map<String, String>> kept = writers.computeIfAbsent(family, f -> new ArrayList<>());
                    if (kept.size() < maxWriters) {
                        kept.add(keysOf(family, summary));
                    } else {
                        dropped.add(family.name() + " " + family.identityOf(summary));
                    }
                }
            }
            for (Map.Entry<String, String> entry : summary.entrySet()) {
                String key = entry.getKey();
                if (!free.containsKey(key)
                        && !inKept.contains(key)
                        && carried(key, environment)
                        && owner(key) == null) {
                    free.put(key, entry.getValue());
                }
            }
        }
        Map<String, String> head = new LinkedHashMap<>(free);
        List<Map<String, String>> below = new ArrayList<>();
        for (List<Map<String, String>> kept : writers.values()) {
            head.putAll(kept.get(0));
            for (int older = 1; older < kept.size(); older++) {
                while (below.size() < older) {
                    below.add(new LinkedHashMap<>());
                }
                below.get(older - 1).putAll(kept.get(older));
            }
        }
        return new WriterMarkers(head, below, dropped);
    }

    /** What the rebuilt snapshot carries. */
    Map<String, String> head() {
        return head;
    }

    /**
     * The summaries of the empty marker snapshots to commit below the rebuilt one, in commit order:
     * the oldest writers first, so the newest are nearest the head.
     */
    List<Map<String, String>> belowInCommitOrder() {
        List<Map<String, String>> order = new ArrayList<>(below);
        java.util.Collections.reverse(order);
        return order;
    }

    /** Writers beyond the limit whose markers were not kept. */
    List<String> dropped() {
        return dropped;
    }

    private static Map<String, String> keysOf(Family family, Map<String, String> summary) {
        Map<String, String> keys = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : summary.entrySet()) {
            if (family.owns(entry.getKey())) {
                keys.put(entry.getKey(), entry.getValue());
            }
        }
        return keys;
    }

    private static Family owner(String key) {
        for (Family family : FAMILIES) {
            if (family.owns(key)) {
                return family;
            }
        }
        return null;
    }

    /** Whether a rebuild carries {@code key}: not Iceberg's, not floe's, not set by the environment. */
    static boolean carried(String key, Set<String> environment) {
        if (ICEBERG_KEYS.contains(key) || environment.contains(key)) {
            return false;
        }
        for (String prefix : ICEBERG_PREFIXES) {
            if (key.startsWith(prefix)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Every summary key Iceberg itself defines, read from this Iceberg's {@link SnapshotSummary} so
     * that keys a newer Iceberg adds are never mistaken for a writer's, plus what {@link
     * EnvironmentContext} adds to every snapshot.
     */
    private static Set<String> icebergKeys() {
        Set<String> keys = new TreeSet<>();
        for (Field field : SnapshotSummary.class.getFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers) && field.getType() == String.class) {
                try {
                    keys.add((String) field.get(null));
                } catch (IllegalAccessException e) {
                    // public fields only
                }
            }
        }
        keys.addAll(List.of("iceberg-version", EnvironmentContext.ENGINE_NAME, EnvironmentContext.ENGINE_VERSION));
        return keys;
    }
}
