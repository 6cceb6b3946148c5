package dev.floe.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The agent's configuration keys: each one's default and the form its value takes, in the order
 * the key table of {@code docs/configuration.md} lists them (a test checks that the table lists these
 * keys in this order, each with its default, and no other). The list is data, {@code config-keys.tsv}
 * next to this class.
 */
final class ConfigKeys {
    private ConfigKeys() {}

    /** Every key, its default and the form it takes, in the order docs/configuration.md documents them. */
    static final Map<String, String[]> ALL = load();

    private static Map<String, String[]> load() {
        Map<String, String[]> keys = new LinkedHashMap<>();
        try (InputStream in = ConfigKeys.class.getResourceAsStream("config-keys.tsv")) {
            if (in == null) {
                throw new IllegalStateException("config-keys.tsv is missing from the agent jar");
            }
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] fields = line.split("\t", -1);
                keys.put(fields[0], new String[] {fields[1], fields[2]});
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read config-keys.tsv from the agent jar", e);
        }
        return Collections.unmodifiableMap(keys);
    }
}
