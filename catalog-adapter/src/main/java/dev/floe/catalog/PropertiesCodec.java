package dev.floe.catalog;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Namespace properties stored as one string: each key and value written as {@code <length>:<text>}.
 * Length-prefixing means no character in a key or value needs escaping.
 */
final class PropertiesCodec {
    private PropertiesCodec() {}

    static String encode(Map<String, String> properties) {
        StringBuilder out = new StringBuilder();
        new TreeMap<>(properties).forEach((key, value) -> {
            appendField(out, key);
            appendField(out, value);
        });
        return out.toString();
    }

    static Map<String, String> decode(String encoded) {
        Map<String, String> properties = new LinkedHashMap<>();
        int[] position = {0};
        while (position[0] < encoded.length()) {
            String key = readField(encoded, position);
            String value = readField(encoded, position);
            properties.put(key, value);
        }
        return properties;
    }

    private static void appendField(StringBuilder out, String text) {
        out.append(text.length()).append(':').append(text);
    }

    private static String readField(String encoded, int[] position) {
        int colon = encoded.indexOf(':', position[0]);
        int length = Integer.parseInt(encoded.substring(position[0], colon));
        String text = encoded.substring(colon + 1, colon + 1 + length);
        position[0] = colon + 1 + length;
        return text;
    }
}
