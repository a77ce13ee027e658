package dev.dht.node.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * The valid client tokens with their scopes, parsed from the tokens file: one token a line, {@code <scope> <token>},
 * {@code #} comments and blank lines ignored. Several tokens may be valid at once (rotation: add the new one,
 * move the clients, remove the old one). Only SHA-256 digests are kept: a lookup compares digests, so its time
 * says nothing about how much of a guessed token was right.
 */
public final class Tokens {
    /** Shorter tokens are refused: a guessable token is no credential. */
    public static final int MIN_LENGTH = 16;

    /** One digest per thread: a lookup runs on every client request that carries a token. */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always there", e);
        }
    });

    private final Map<String, Scope> scopes;

    private Tokens(Map<String, Scope> scopes) {
        this.scopes = Map.copyOf(scopes);
    }

    /** Parses the file's content; IllegalArgumentException names the first bad line. */
    public static Tokens parse(String content) {
        Map<String, Scope> scopes = new HashMap<>();
        String[] lines = content.split("\\R", -1);
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n];
            int hash = line.indexOf('#');
            String text = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (text.isEmpty()) {
                continue;
            }
            String[] parts = text.split("\\s+");
            if (parts.length != 2) {
                throw new IllegalArgumentException("line " + (n + 1) + ": expected '<scope> <token>'");
            }
            Scope scope = Scope.parse(parts[0]);
            if (scope == null) {
                throw new IllegalArgumentException(
                        "line " + (n + 1) + ": unknown scope '" + parts[0] + "' (read-only, read-write or admin)");
            }
            if (parts[1].length() < MIN_LENGTH) {
                throw new IllegalArgumentException(
                        "line " + (n + 1) + ": a token needs at least " + MIN_LENGTH + " characters");
            }
            Scope before = scopes.put(digest(parts[1]), scope);
            if (before != null && before != scope) {
                throw new IllegalArgumentException("line " + (n + 1) + ": the same token with two scopes");
            }
        }
        return new Tokens(scopes);
    }

    /** The token's scope, or null if it is not valid. */
    public Scope scopeOf(String token) {
        return scopes.get(digest(token));
    }

    public int size() {
        return scopes.size();
    }

    private static String digest(String token) {
        return HexFormat.of().formatHex(SHA_256.get().digest(token.getBytes(StandardCharsets.UTF_8)));
    }
}
