package dev.floe.agent;

import dev.floe.runtime.Prune;
import dev.floe.runtime.RebuildSettings;
import dev.floe.runtime.guard.GuardSettings;
import dev.floe.runtime.rest.RestSettings;
import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The agent's configuration: one properties file, named by the agent argument ({@code
 * -javaagent:floe-agent.jar=/etc/floe.properties}) or by {@code -Dfloe.config=...}; any key can be
 * overridden with {@code -Dfloe.<key>=...}. Every key has a default and is validated here, before
 * anything is instrumented: an unknown key is a warning naming it; a bad value keeps the agent off
 * with one error naming the key, the value and the expected form.
 */
public final class AgentConfig {
    static final String CONFIG_PROPERTY = "floe.config";
    /** Properties starting with this prefix are floe's own, but not configuration keys. */
    static final String INTERNAL_PREFIX = "floe.internal.";

    /** Every key, its default and the form it takes ({@link ConfigKeys}). */
    static final Map<String, String[]> KEYS = ConfigKeys.ALL;

    private final boolean enabled;
    private final GuardSettings settings;
    private final List<String> warnings;
    private final String source;
    private final Map<String, String> values;
    private final RestSettings rest;

    private AgentConfig(
            boolean enabled,
            GuardSettings settings,
            RestSettings rest,
            List<String> warnings,
            String source,
            Map<String, String> values) {
        this.enabled = enabled;
        this.settings = settings;
        this.rest = rest;
        this.warnings = warnings;
        this.source = source;
        this.values = Map.copyOf(values);
    }

    /**
     * The keys given (file and system properties), as read: what each class loader's guard parses
     * again. A token file is read once, here: the guards get its token, so a file rotated or removed
     * later changes no guard's endpoint.
     */
    Map<String, String> values() {
        return values;
    }

    /**
     * Parses values read before ({@link #values()}), looking up the prune class in {@code pruneLoader}:
     * what a class loader's guard does with the configuration the agent read at start.
     */
    static AgentConfig parse(Map<String, String> values, String source, ClassLoader pruneLoader)
            throws ConfigException {
        return parse(new LinkedHashMap<>(values), new ArrayList<>(), source, pruneLoader);
    }

    boolean enabled() {
        return enabled;
    }

    public GuardSettings settings() {
        return settings;
    }

    /** The REST catalog endpoint's settings; null when it is off ({@code floe.rest.port} not set). */
    public RestSettings rest() {
        return rest;
    }

    /** One line per unknown key. */
    public List<String> warnings() {
        return warnings;
    }

    /** Where the configuration came from, for the start-up line. */
    String source() {
        return source;
    }

    /**
     * Reads the file named by {@code agentArgs} (or {@code -Dfloe.config}), then the {@code floe.*}
     * system properties over it.
     *
     * @param pruneLoader where a prune class is looked up; null: not yet (the prune class is then
     *     checked by each class loader's guard, in that loader)
     */
    public static AgentConfig load(String agentArgs, Properties system, ClassLoader pruneLoader)
            throws ConfigException {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>();
        String file =
                agentArgs != null && !agentArgs.isBlank() ? agentArgs.trim() : system.getProperty(CONFIG_PROPERTY);
        String source = "defaults";
        if (file != null && !file.isBlank()) {
            readFile(Path.of(file), values, warnings);
            source = file;
        }
        for (String name : system.stringPropertyNames()) {
            if (name.startsWith("floe.") && !name.equals(CONFIG_PROPERTY) && !name.startsWith(INTERNAL_PREFIX)) {
                if (KEYS.containsKey(name)) {
                    values.put(name, system.getProperty(name));
                } else {
                    warnings.add(unknown(name, "-D" + name));
                }
            }
        }
        return parse(values, warnings, source, pruneLoader);
    }

    private static void readFile(Path path, Map<String, String> values, List<String> warnings) throws ConfigException {
        Properties file = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            file.load(reader);
        } catch (NoSuchFileException e) {
            throw new ConfigException(
                    "configuration file " + path.toAbsolutePath() + " does not exist: fix the path given to"
                            + " -javaagent:floe-agent.jar=<file> or -Dfloe.config=<file>");
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException("configuration file " + path.toAbsolutePath() + " cannot be read (" + e
                    + "): check that it" + " exists, is readable by this process and is a properties file");
        }
        for (String name : file.stringPropertyNames()) {
            if (KEYS.containsKey(name)) {
                values.put(name, file.getProperty(name));
            } else {
                warnings.add(unknown(name, path.toString()));
            }
        }
    }

    private static String unknown(String name, String where) {
        List<String> close =
                KEYS.keySet().stream().filter(k -> similar(k, name)).collect(Collectors.toList());
        return "unknown configuration key '" + name + "' in " + where + " is ignored"
                + (close.isEmpty() ? "" : "; did you mean " + String.join(" or ", close) + "?");
    }

    /** A file path, relative ones against the working directory; not a directory. */
    private static java.nio.file.Path stateFile(ConfigValues v) throws ConfigException {
        String raw = v.raw("floe.state.file").trim();
        java.nio.file.Path path;
        try {
            path = java.nio.file.Path.of(raw.isEmpty() ? GuardSettings.DEFAULT_STATE_FILE : raw)
                    .toAbsolutePath();
        } catch (java.nio.file.InvalidPathException e) {
            throw v.invalid("floe.state.file");
        }
        if (java.nio.file.Files.isDirectory(path)) {
            throw v.invalid("floe.state.file");
        }
        return path;
    }

    private static boolean similar(String key, String name) {
        String a = key.replace("floe.", "");
        String b = name.replace("floe.", "");
        return a.contains(b)
                || b.contains(a)
                || a.replace("-", "").equalsIgnoreCase(b.replace("-", "").replace("_", ""));
    }

    private static AgentConfig parse(
            Map<String, String> values, List<String> warnings, String source, ClassLoader pruneLoader)
            throws ConfigException {
        ConfigValues v = new ConfigValues(values);
        boolean enabled = v.bool("floe.enabled");
        List<String> tables = Arrays.stream(v.raw("floe.tables").split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toList());
        long snapshots = v.count("floe.trigger.snapshots", 2);
        long dataFiles = v.count("floe.trigger.data-files", 1);
        long metadataBytes = v.bytes("floe.trigger.metadata-bytes");
        Duration minInterval = v.duration("floe.trigger.min-interval");
        int mergeManifests = (int) v.count("floe.merge.manifests", 0);
        Duration busyBackoff = v.duration("floe.trigger.busy-backoff");
        Duration busyBackoffMax = v.duration("floe.trigger.busy-backoff-max");
        if (busyBackoffMax.compareTo(busyBackoff) < 0) {
            throw v.invalid("floe.trigger.busy-backoff-max");
        }
        int rowGroupRows = (int) v.count("floe.rebuild.row-group-rows", 1);
        long rowGroupMaxBytes = v.bytes("floe.rebuild.row-group-max-bytes");
        long targetFileBytes = v.bytes("floe.rebuild.target-file-bytes");
        long zstd = v.count("floe.rebuild.zstd-level", 1);
        if (zstd > 22) {
            throw v.invalid("floe.rebuild.zstd-level");
        }
        int metadataVersions = (int) v.count("floe.rebuild.metadata-versions", 0);
        int writerMarkers = (int) v.count("floe.rebuild.writer-markers", 1);
        int fanIn = (int) v.count("floe.rebuild.fan-in", 2);
        double deleteRatio = v.share("floe.rebuild.delete-ratio");
        int fullEvery = (int) v.count("floe.rebuild.full-every", 0);
        Duration historyKeep = v.duration("floe.history.keep");
        int historyKeepSnapshots = (int) v.count("floe.history.keep-snapshots", 1);
        Duration rewriteAfter = v.durationOrOff("floe.history.rewrite-after");
        boolean copyRowGroups = v.bool("floe.rebuild.copy-row-groups");
        long majorBytes = v.bytesOrOff("floe.rebuild.major-bytes");
        Duration grace = v.duration("floe.reclaim.grace");
        int handles = (int) v.count("floe.handles.max", 0);
        boolean jmx = v.bool("floe.jmx");
        java.nio.file.Path stateFile = stateFile(v);
        Supplier<Prune> prune = pruneSupplier(v, pruneLoader);
        RebuildSettings rebuild = RebuildSettings.defaults().with(r -> {
            r.rowGroupRows = rowGroupRows;
            r.rowGroupMaxBytes = rowGroupMaxBytes;
            r.targetFileBytes = targetFileBytes;
            r.zstdLevel = (int) zstd;
            r.reclaimGrace = grace;
            r.metadataVersions = metadataVersions;
            r.writerMarkers = writerMarkers;
            r.fanIn = fanIn;
            r.deleteRatio = deleteRatio;
            r.fullEvery = fullEvery;
            r.historyKeep = historyKeep;
            r.historyKeepSnapshots = historyKeepSnapshots;
            r.historyRewriteAfter = rewriteAfter;
            r.copyRowGroups = copyRowGroups;
            r.majorBytes = majorBytes;
        });
        GuardSettings settings = new GuardSettings(
                tables,
                snapshots,
                dataFiles,
                metadataBytes,
                minInterval,
                mergeManifests,
                rebuild,
                prune,
                handles,
                jmx,
                busyBackoff,
                busyBackoffMax,
                stateFile);
        RestSettings rest = RestConfig.parse(v, warnings);
        return new AgentConfig(enabled, settings, rest, warnings, source, RestConfig.tokenRead(values, rest));
    }

    private static Supplier<Prune> pruneSupplier(ConfigValues v, ClassLoader loader) throws ConfigException {
        String name = v.raw("floe.rebuild.prune-class").trim();
        if (name.isEmpty() || loader == null) {
            return () -> Prune.NONE;
        }
        Class<?> type;
        try {
            type = Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            throw new ConfigException(
                    "floe.rebuild.prune-class is '" + name + "', and no such class is on the host's class path;"
                            + " expected " + KEYS.get("floe.rebuild.prune-class")[1]);
        } catch (LinkageError e) {
            throw new ConfigException("floe.rebuild.prune-class is '" + name + "', which cannot be loaded (" + e
                    + "); a prune class"
                    + " implements " + Prune.class.getName() + ", so the host needs floe-runtime.jar on its class"
                    + " path next to it");
        }
        if (!Prune.class.isAssignableFrom(type)) {
            throw new ConfigException("floe.rebuild.prune-class is '" + name + "', which does not implement "
                    + Prune.class.getName() + "; expected " + KEYS.get("floe.rebuild.prune-class")[1]);
        }
        Constructor<?> constructor;
        try {
            constructor = type.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new ConfigException(
                    "floe.rebuild.prune-class is '" + name + "', which has no public no-argument constructor;"
                            + " expected " + KEYS.get("floe.rebuild.prune-class")[1]);
        }
        return () -> {
            try {
                return (Prune) constructor.newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Cannot create prune " + name + ": " + e.getCause(), e);
            }
        };
    }
}
