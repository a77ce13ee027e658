package dev.dht.operator.security.auth;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.Hashing;
import dev.dht.operator.model.Owners;
import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.SecurityNames;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The Secrets of client authentication. Pure: the tokens are made elsewhere.
 *
 * <ul>
 *   <li>{@code <name>-auth}, the credentials: one token per scope. Created once, when it does not exist; the
 *       operator never writes it again, so users rotate tokens in it and everything in the cluster reads it
 *       ({@code secretKeyRef} on the key {@code read-write}, {@code admin} for profiling).
 *   <li>{@code <name>-auth-tokens}, what the members mount: the node's tokens file rendered from the credentials,
 *       plus the operator's own admin token (key {@value SecurityNames#OPERATOR_TOKEN_KEY}, not mounted).
 * </ul>
 */
public final class AuthSecrets {
    private AuthSecrets() {}

    public static Secret credentials(DhtCluster cluster, SecurityModel.Auth auth, Map<String, String> tokensByScope) {
        return secret(cluster, auth.credentialsSecret(), tokensByScope);
    }

    public static Secret tokens(
            DhtCluster cluster, SecurityModel.Auth auth, Tokens.Credentials credentials, String operatorToken) {
        var data = new LinkedHashMap<String, String>();
        data.put(SecurityNames.TOKENS_KEY, Tokens.file(credentials, operatorToken));
        data.put(SecurityNames.OPERATOR_TOKEN_KEY, operatorToken);
        return secret(cluster, auth.tokensSecret(), data);
    }

    /** The operator's own admin token in the tokens Secret ({@link #tokens} writes it), if that Secret holds one. */
    public static Optional<String> operatorToken(Secret tokens) {
        return SecretData.text(tokens, SecurityNames.OPERATOR_TOKEN_KEY);
    }

    private static Secret secret(DhtCluster cluster, String name, Map<String, String> texts) {
        return Hashing.stamp(new SecretBuilder()
                .withMetadata(Owners.metadata(cluster, name))
                .withType("Opaque")
                .withData(SecretData.encode(texts))
                .build());
    }
}
