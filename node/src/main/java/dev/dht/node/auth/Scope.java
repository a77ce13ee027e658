package dev.dht.node.auth;

import java.util.Locale;

/**
 * What a client token allows, each scope including the ones before it (docs/security.md, "Credentials"):
 * read-only reads values, ranges, metrics and status; read-write also writes and deletes; admin also runs admin
 * operations (profiles, cleanup, and whatever changes a node's state or costs resources).
 */
public enum Scope {
    READ_ONLY("read-only"),
    READ_WRITE("read-write"),
    ADMIN("admin");

    private final String text;

    Scope(String text) {
        this.text = text;
    }

    /** Whether a token of this scope may do what {@code required} needs. */
    public boolean allows(Scope required) {
        return compareTo(required) >= 0;
    }

    /** The scope named as in the tokens file, or null. */
    public static Scope parse(String text) {
        for (Scope s : values()) {
            if (s.text.equals(text.toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return text;
    }
}
