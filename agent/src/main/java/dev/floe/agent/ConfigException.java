package dev.floe.agent;

/** The configuration cannot be used; the message names the key, the value and the expected form. */
public final class ConfigException extends Exception {
    ConfigException(String message) {
        super(message);
    }
}
