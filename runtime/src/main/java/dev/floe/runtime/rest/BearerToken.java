package dev.floe.runtime.rest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/** The token a request must carry, {@code Authorization: Bearer <token>}, compared in constant time. */
final class BearerToken {
    private static final String SCHEME = "Bearer ";

    private final byte[] expected;

    /** @param token null: every request is let in */
    BearerToken(String token) {
        this.expected = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether a request with this {@code Authorization} header (null when absent) is let in. */
    boolean admits(String authorization) {
        if (expected == null) {
            return true;
        }
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        byte[] given = authorization.substring(SCHEME.length()).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(expected, given);
    }
}
