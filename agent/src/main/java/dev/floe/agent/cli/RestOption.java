package dev.floe.agent.cli;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --rest <uri>} (with {@code --rest-token-file}): where {@code status} reads a catalog whose
 * file a running process holds, over the REST catalog endpoint that process serves ({@code
 * floe.rest.port}).
 */
final class RestOption {
    @Option(
            names = "--rest",
            paramLabel = "<uri>",
            description = "When the catalog file is in use by a running process that serves floe's REST catalog"
                    + " endpoint (floe.rest.port), read status over it instead: the URI floe's start line"
                    + " prints, e.g. http://127.0.0.1:8181/. The file is tried first.")
    String uri;

    @Option(
            names = "--rest-token-file",
            paramLabel = "<file>",
            description = "The endpoint's token (floe.rest.token-file of the process), when it asks for one.")
    Path tokenFile;

    boolean given() {
        return uri != null;
    }

    /** The endpoint's URI, checked (http or https, with a host), ending in a slash. */
    String endpoint() {
        URI parsed;
        try {
            parsed = new URI(uri.trim());
        } catch (URISyntaxException e) {
            throw usage("--rest '" + uri + "' is not a URI");
        }
        if (!("http".equals(parsed.getScheme()) || "https".equals(parsed.getScheme())) || parsed.getHost() == null) {
            throw usage("--rest '" + uri + "' is not an http:// URI with a host; give the URI floe's start line"
                    + " prints, e.g. http://127.0.0.1:8181/");
        }
        String checked = parsed.toString();
        return checked.endsWith("/") ? checked : checked + "/";
    }

    /** The token, or null without {@code --rest-token-file}. */
    String token() {
        if (tokenFile == null) {
            return null;
        }
        String token;
        try {
            token = Files.readString(tokenFile, StandardCharsets.UTF_8).trim();
        } catch (IOException | RuntimeException e) {
            throw usage("--rest-token-file " + tokenFile + " cannot be read (" + e + ")");
        }
        if (token.isEmpty()) {
            throw usage("--rest-token-file " + tokenFile + " is empty");
        }
        return token;
    }

    private static FloeCli.CliException usage(String message) {
        return new FloeCli.CliException(FloeCli.USAGE, message);
    }
}
