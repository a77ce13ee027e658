package dev.dht.operator.security.auth;

import dev.dht.operator.security.SecurityModel;
import java.util.Optional;
import java.util.stream.Collectors;

/** The condition CredentialsReady: does the credentials Secret give clients at least one usable token. Pure. */
public final class AuthStatuses {
    public static final String CONDITION = "CredentialsReady";

    public record Verdict(boolean ready, String reason, String message) {}

    private AuthStatuses() {}

    public static Verdict verdict(SecurityModel.Auth auth, Optional<Tokens.Credentials> credentials) {
        if (credentials.isEmpty()) {
            return new Verdict(
                    false,
                    "Missing",
                    "Secret " + auth.credentialsSecret() + " does not exist: create it with"
                            + " one key per token, named read-write, read-only or admin (optionally with a suffix: read-write.app)");
        }
        var c = credentials.get();
        String ignored = c.ignored().isEmpty()
                ? ""
                : "; ignored keys: "
                        + c.ignored().entrySet().stream()
                                .map(e -> e.getKey() + " (" + e.getValue() + ")")
                                .collect(Collectors.joining(", "));
        if (c.tokens().isEmpty()) {
            return new Verdict(
                    false,
                    "NoTokens",
                    "Secret " + auth.credentialsSecret() + " holds no usable token: clients" + " get 401" + ignored);
        }
        return new Verdict(
                true,
                "Ready",
                c.count("read-write") + " read-write, " + c.count("read-only") + " read-only and " + c.count("admin")
                        + " admin token(s) in Secret " + auth.credentialsSecret() + ignored);
    }
}
