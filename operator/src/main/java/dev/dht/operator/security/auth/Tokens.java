package dev.dht.operator.security.auth;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Client tokens: the credentials Secret (one key per token, named after its scope) turned into the node's tokens
 * file ({@code <scope> <token>} lines, the node's --auth-tokens format).
 */
public final class Tokens {
    public static final List<String> SCOPES = List.of("read-write", "read-only", "admin");
    /** A token is at least this long: 16 characters of base64 carry 96 bits. */
    public static final int MIN_LENGTH = 16;

    private static final Pattern KEY = Pattern.compile("(read-write|read-only|admin)(\\.[-._a-zA-Z0-9]+)?");
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._~+/=-]+");

    /** One token of the credentials Secret. */
    public record Token(String key, String scope, String value) {}

    /**
     * @param tokens the usable ones, by key
     * @param ignored keys that are not tokens, with why (shown in the status; values are never shown)
     */
    public record Credentials(List<Token> tokens, Map<String, String> ignored) {
        public long count(String scope) {
            return tokens.stream().filter(t -> t.scope().equals(scope)).count();
        }
    }

    private Tokens() {}

    /** 256 random bits, URL-safe base64 without padding (43 characters). */
    public static String generate(SecureRandom random) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Reads the credentials Secret's values (key to token). */
    public static Credentials read(Map<String, String> secret) {
        var tokens = new ArrayList<Token>();
        var ignored = new TreeMap<String, String>();
        new TreeMap<>(secret).forEach((key, raw) -> {
            var m = KEY.matcher(key);
            String value = raw == null ? "" : raw.strip();
            if (!m.matches()) {
                ignored.put(key, "not <scope>[.<suffix>] with scope read-write, read-only or admin");
            } else if (value.length() < MIN_LENGTH) {
                ignored.put(key, "shorter than " + MIN_LENGTH + " characters");
            } else if (!TOKEN.matcher(value).matches()) {
                ignored.put(key, "has characters other than letters, digits and -._~+/=");
            } else {
                tokens.add(new Token(key, m.group(1), value));
            }
        });
        return new Credentials(List.copyOf(tokens), ignored);
    }

    /** The node's tokens file: the credentials' tokens, then the operator's own admin token. */
    public static String file(Credentials credentials, String operatorToken) {
        var out = new StringBuilder(
                "# Rendered by dht-operator from the credentials Secret; edit that Secret instead.\n");
        for (var t : credentials.tokens()) {
            out.append("# ")
                    .append(t.key())
                    .append('\n')
                    .append(t.scope())
                    .append(' ')
                    .append(t.value())
                    .append('\n');
        }
        out.append("# the operator's own\nadmin ").append(operatorToken).append('\n');
        return out.toString();
    }
}
