package dev.dht.node.config;

/** A bad option or value; the message is one line meant for the operator who typed it. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }
}
