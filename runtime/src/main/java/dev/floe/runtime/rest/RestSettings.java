package dev.floe.runtime.rest;

/**
 * How the REST catalog endpoint listens and whom it serves. JDK types only: the agent reads these
 * at start, before any Iceberg is loaded.
 *
 * @param port the TCP port; 0 for an ephemeral one
 * @param bind the address to listen on (default {@value #DEFAULT_BIND}: this machine only)
 * @param token when not null, every request needs {@code Authorization: Bearer <token>}
 * @param writes whether mutating routes (create, commit, drop, rename) are served; else 403
 * @param maxBodyBytes the largest request body read; a larger one is refused with 413
 */
public record RestSettings(int port, String bind, String token, boolean writes, long maxBodyBytes) {
    public static final String DEFAULT_BIND = "127.0.0.1";
    /** 16 MiB: far above any commit a client sends (a commit carries metadata updates, not data). */
    public static final long DEFAULT_MAX_BODY_BYTES = 16L << 20;

    public RestSettings {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not 0 to 65535");
        }
        if (bind == null || bind.isBlank()) {
            throw new IllegalArgumentException("no address to bind");
        }
        if (token != null && token.isBlank()) {
            throw new IllegalArgumentException("a blank token");
        }
        if (maxBodyBytes <= 0) {
            throw new IllegalArgumentException("maxBodyBytes " + maxBodyBytes + " is not positive");
        }
    }

    /** Loopback, no token, read-only, the default body limit. */
    public static RestSettings readOnly(int port) {
        return new RestSettings(port, DEFAULT_BIND, null, false, DEFAULT_MAX_BODY_BYTES);
    }

    public RestSettings withToken(String newToken) {
        return new RestSettings(port, bind, newToken, writes, maxBodyBytes);
    }

    public RestSettings withWrites(boolean enabled) {
        return new RestSettings(port, bind, token, enabled, maxBodyBytes);
    }

    public RestSettings withMaxBodyBytes(long bytes) {
        return new RestSettings(port, bind, token, writes, bytes);
    }

    /** What the start line says about access: read-only or writes, token or none. */
    public String describeAccess() {
        return (writes ? "reads and writes" : "read-only") + ", " + (token == null ? "no token" : "token required");
    }

    @Override
    public String toString() {
        // never the token itself
        return "RestSettings[port=" + port + ", bind=" + bind + ", token=" + (token == null ? "none" : "set")
                + ", writes=" + writes + ", maxBodyBytes=" + maxBodyBytes + "]";
    }
}
