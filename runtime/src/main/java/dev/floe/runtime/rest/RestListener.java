package dev.floe.runtime.rest;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The endpoint's socket: the JDK's own HTTP server ({@code com.sun.net.httpserver}, no dependency to
 * bundle or relocate), bound at once, serving whatever handler is {@linkplain #attach attached}
 * later. JDK types only, so the agent binds it at start, before the host has loaded any Iceberg, and
 * prints the port; the guard of the class loader whose MapDbCatalog it serves attaches the handler
 * ({@link RestHandler}) built against that loader's Iceberg.
 *
 * <p>Until a handler is attached every request is answered 503 (401 first when a token is set and
 * the request lacks it), with no body. Its threads are daemons: the endpoint never keeps the host's
 * JVM alive.
 */
public final class RestListener implements AutoCloseable {
    /** Requests served at once; more wait for a thread. */
    static final int THREADS = 4;
    /**
     * The JDK server's limits on slow clients, in seconds, set when the JVM has none: a request must
     * arrive whole within {@value #MAX_REQUEST_SECONDS} s and its response be taken within {@value
     * #MAX_RESPONSE_SECONDS} s, else its connection is closed. Without them (the JDK's default is no
     * limit) a client that sends half a request holds one of the {@value #THREADS} threads for good.
     * They are the JVM's, read once when its first such server starts.
     */
    static final long MAX_REQUEST_SECONDS = 30;

    static final long MAX_RESPONSE_SECONDS = 120;

    private final HttpServer server;
    private final ExecutorService executor;
    private final BearerToken token;
    private final AtomicReference<HttpHandler> served = new AtomicReference<>();

    private RestListener(HttpServer server, ExecutorService executor, BearerToken token) {
        this.server = server;
        this.executor = executor;
        this.token = token;
    }

    /**
     * Binds {@code settings.bind():settings.port()} and starts serving (503 until {@link #attach}).
     *
     * @throws IOException when the address cannot be had (a port in use, an address not of this
     *     machine)
     */
    public static RestListener open(RestSettings settings) throws IOException {
        limitSlowClients();
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(settings.bind()), settings.port());
        HttpServer server = HttpServer.create(address, 0);
        ExecutorService executor = Executors.newFixedThreadPool(THREADS, daemons("floe-rest-"));
        server.setExecutor(executor);
        RestListener listener = new RestListener(server, executor, new BearerToken(settings.token()));
        server.createContext("/", listener::handle);
        // the server's dispatcher thread takes its daemon flag from the thread that starts it
        Thread starter = daemons("floe-rest-start").newThread(server::start);
        starter.start();
        try {
            starter.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            listener.close();
            throw new IOException("interrupted while starting the REST endpoint", e);
        }
        return listener;
    }

    /**
     * Sets the JDK server's slow-client limits ({@link #MAX_REQUEST_SECONDS}, {@link
     * #MAX_RESPONSE_SECONDS}) where the JVM has none, and returns those it set, as {@code key=value}:
     * they are the JVM's, so the agent says so at start.
     */
    public static java.util.List<String> limitSlowClients() {
        java.util.List<String> set = new java.util.ArrayList<>();
        for (String[] limit : new String[][] {
            {"sun.net.httpserver.maxReqTime", Long.toString(MAX_REQUEST_SECONDS)},
            {"sun.net.httpserver.maxRspTime", Long.toString(MAX_RESPONSE_SECONDS)}
        }) {
            if (System.getProperties().putIfAbsent(limit[0], limit[1]) == null) {
                set.add(limit[0] + "=" + limit[1]);
            }
        }
        return set;
    }

    /**
     * Serves {@code handler} from now on, if no handler was attached before; returns whether it was
     * attached.
     */
    public boolean attach(HttpHandler handler) {
        return served.compareAndSet(null, handler);
    }

    /**
     * Serves {@code replacement} (null: none, 503 again) if {@code expected} is served now; returns
     * whether it was swapped. The agent's slot: a loader attaches its handler and detaches it when
     * the host closes the catalog it serves.
     */
    public boolean swap(HttpHandler expected, HttpHandler replacement) {
        return served.compareAndSet(expected, replacement);
    }

    public boolean attached() {
        return served.get() != null;
    }

    /** The port it listens on (the ephemeral one chosen, for port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://<address>:<port>/}, the URI a client is given. */
    public String uri() {
        InetSocketAddress address = server.getAddress();
        String host = address.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return "http://" + host + ":" + address.getPort() + "/";
    }

    private void handle(HttpExchange exchange) throws IOException {
        HttpHandler handler = served.get();
        if (handler != null) {
            handler.handle(exchange);
            return;
        }
        try (exchange) {
            // an unread body is drained by the close, up to the server's limit, then the connection closed
            boolean admitted = token.admits(exchange.getRequestHeaders().getFirst("Authorization"));
            if (admitted) {
                exchange.getResponseHeaders().add("Retry-After", "1");
            }
            exchange.sendResponseHeaders(admitted ? 503 : 401, -1);
        }
    }

    /** Stops listening at once and ends its threads. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public String toString() {
        return "RestListener{" + uri() + "}";
    }
}
