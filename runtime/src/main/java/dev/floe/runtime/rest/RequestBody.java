package dev.floe.runtime.rest;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import org.apache.iceberg.exceptions.BadRequestException;

/**
 * A request's body, read whole within the endpoint's limit: refused before it is read when its
 * declared length is past the limit, and as soon as it passes the limit otherwise. A write's body is
 * read on the listener's thread, before the write waits for a write thread: the JDK server counts a
 * request's time until its body is read, and would drop a commit that queued longer than its limit.
 */
final class RequestBody {
    private final byte[] bytes;
    private final Exception failure;

    private RequestBody(byte[] bytes, Exception failure) {
        this.bytes = bytes;
        this.failure = failure;
    }

    /** Reads it now; a failure is kept, and thrown by {@link #bytes}. */
    static RequestBody readNow(HttpExchange exchange, long limit) {
        try {
            return new RequestBody(read(exchange, limit), null);
        } catch (IOException | RuntimeException e) {
            return new RequestBody(null, e);
        }
    }

    /** The bytes, or the failure reading them. */
    byte[] bytes() throws IOException {
        if (failure instanceof IOException) {
            throw (IOException) failure;
        }
        if (failure != null) {
            throw (RuntimeException) failure;
        }
        return bytes;
    }

    static byte[] read(HttpExchange exchange, long limit) throws IOException {
        String declared = exchange.getRequestHeaders().getFirst("Content-Length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.trim()) > limit) {
                    throw new RestErrors.BodyTooLarge(limit);
                }
            } catch (NumberFormatException e) {
                throw new BadRequestException("Malformed Content-Length: %s", declared);
            }
        }
        try (InputStream in = exchange.getRequestBody()) {
            byte[] read = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
            if (read.length > limit) {
                throw new RestErrors.BodyTooLarge(limit);
            }
            return read;
        }
    }
}
