package dev.floe.agent;

/**
 * The agent's own start-up messages, written to standard error: they must be seen even when the
 * host has no logging set up yet, and they must not initialise the host's logging before the host
 * does. Everything after start-up logs through the host's SLF4J.
 */
final class AgentLog {
    private AgentLog() {}

    static void info(String message) {
        System.err.println("[floe] INFO " + message);
    }

    static void warn(String message) {
        System.err.println("[floe] WARN " + message);
    }

    static void error(String message) {
        System.err.println("[floe] ERROR " + message);
    }
}
