package dev.floe.agent;

import dev.floe.runtime.rest.RestSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code floe.rest.*} keys: whether the REST catalog endpoint runs, where it listens, the token
 * it asks for and whether it takes writes. Each bad value is one {@link ConfigException} naming the
 * key and the fix (a token is never repeated in one).
 */
final class RestConfig {
    private RestConfig() {}

    /** The endpoint's settings, or null when {@code floe.rest.port} is not set (the endpoint is off). */
    static RestSettings parse(ConfigValues v, List<String> warnings) throws ConfigException {
        String port = v.raw("floe.rest.port").trim();
        boolean writes = v.bool("floe.rest.writes");
        if (port.isEmpty()) {
            return null; // the token file is not read: nothing would ask for the token
        }
        String token = token(v);
        int number;
        try {
            number = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw v.invalid("floe.rest.port");
        }
        if (number < 0 || number > 65535) {
            throw v.invalid("floe.rest.port");
        }
        String bind = v.raw("floe.rest.bind").trim();
        if (bind.isEmpty()) {
            throw v.invalid("floe.rest.bind");
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException | SecurityException e) {
            throw v.invalid("floe.rest.bind");
        }
        if (!address.isLoopbackAddress() && token == null) {
            warnings.add("floe.rest.bind is " + bind + ", reachable from other machines, and no token is set:"
                    + " anyone who reaches it reads every table" + (writes ? " and can change it" : "")
                    + "; set floe.rest.token-file (or floe.rest.token)");
        }
        return new RestSettings(number, bind, token, writes, RestSettings.DEFAULT_MAX_BODY_BYTES);
    }

    /**
     * {@code values} with {@code floe.rest.token-file} replaced by the token read from it, so that
     * what parses them again (each class loader's guard) never reads the file again.
     */
    static Map<String, String> tokenRead(Map<String, String> values, RestSettings rest) {
        if (rest == null || rest.token() == null || !values.containsKey("floe.rest.token-file")) {
            return values;
        }
        Map<String, String> resolved = new LinkedHashMap<>(values);
        resolved.remove("floe.rest.token-file");
        resolved.put("floe.rest.token", rest.token());
        return resolved;
    }

    private static String token(ConfigValues v) throws ConfigException {
        String inline = v.raw("floe.rest.token").trim();
        String file = v.raw("floe.rest.token-file").trim();
        if (!inline.isEmpty() && !file.isEmpty()) {
            throw new ConfigException("floe.rest.token and floe.rest.token-file are both set; set only one of them"
                    + " (floe.rest.token-file keeps the token out of the command line and the properties file)");
        }
        if (!file.isEmpty()) {
            String read;
            try {
                read = Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
            } catch (IOException | InvalidPathException | SecurityException e) {
                throw new ConfigException("floe.rest.token-file is '" + file + "', which cannot be read (" + e
                        + "); expected " + AgentConfig.KEYS.get("floe.rest.token-file")[1]);
            }
            if (read.isEmpty()) {
                throw new ConfigException("floe.rest.token-file is '" + file + "', which is empty; expected "
                        + AgentConfig.KEYS.get("floe.rest.token-file")[1]);
            }
            return read;
        }
        return inline.isEmpty() ? null : inline;
    }
}
