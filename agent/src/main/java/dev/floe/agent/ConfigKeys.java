package dev.floe.agent;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The agent's configuration keys: each one's default and the form its value takes, in the order
 * README's configuration table lists them (a test checks that it lists every one).
 */
final class ConfigKeys {
    private ConfigKeys() {}

    /** Every key, its default and the form it takes, in the order README documents them. */
    static final Map<String, String[]> ALL = new LinkedHashMap<>();

    static {
        key("floe.enabled", "true", "true or false");
        key("floe.tables", "", "comma-separated globs of namespace.table, e.g. db.events,logs.*; empty: every table");
        key("floe.trigger.snapshots", "500", "a whole number of snapshots, 2 or more");
        key("floe.trigger.data-files", "1000", "a whole number of data files, 1 or more");
        key("floe.trigger.metadata-bytes", "16MiB", "a size such as 16MiB, 512KiB or 1048576");
        key("floe.trigger.min-interval", "1m", "a duration such as 30s, 1m, 10m or PT1M");
        key("floe.trigger.busy-backoff", "1m", "a duration such as 30s, 1m or 10m");
        key("floe.trigger.busy-backoff-max", "1h", "a duration such as 10m or 1h, not below floe.trigger.busy-backoff");
        key("floe.rebuild.row-group-rows", "131072", "a whole number of rows, 1 or more");
        key("floe.rebuild.row-group-max-bytes", "64MiB", "a size such as 64MiB");
        key("floe.rebuild.target-file-bytes", "512MiB", "a size such as 512MiB or 1GiB");
        key("floe.rebuild.zstd-level", "3", "a ZSTD level from 1 to 22");
        key(
                "floe.rebuild.prune-class",
                "",
                "the name of a class implementing dev.floe.runtime.Prune with a public no-argument constructor; empty: no prune");
        key(
                "floe.rebuild.metadata-versions",
                "10",
                "a whole number of previous metadata files, 0 or more (0: leave each table's own setting)");
        key(
                "floe.rebuild.writer-markers",
                "8",
                "a whole number of writers, 1 or more: how many exactly-once writers of one kind (Flink jobs, Spark streaming queries) a rebuild keeps the progress of");
        key("floe.reclaim.grace", "10m", "a duration such as 30s, 10m or 1h");
        key("floe.handles.max", "512", "a whole number of handles, 0 or more");
        key("floe.jmx", "true", "true or false");
    }

    private static void key(String name, String defaultValue, String form) {
        ALL.put(name, new String[] {defaultValue, form});
    }
}
