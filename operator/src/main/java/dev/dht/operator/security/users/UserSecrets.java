package dev.dht.operator.security.users;

import dev.dht.operator.api.v1alpha1.DhtUser;
import dev.dht.operator.api.v1alpha1.DhtUserStatus;
import dev.dht.operator.model.Hashing;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Owners;
import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.pki.Pem;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import javax.security.auth.x500.X500Principal;

/**
 * A DhtUser's certificate Secret and status (docs/operations.md, "Client certificates"). Pure. The Secret is owned
 * by the DhtUser, so deleting the user deletes it.
 */
public final class UserSecrets {
    public static final String READY = "Ready";
    /** Label of a user's Secret: the cluster whose client it is. */
    public static final String CLIENT_OF = "dht.dev/client-of";

    private UserSecrets() {}

    public static String secretName(DhtUser user) {
        var named = user.getSpec() == null ? null : user.getSpec().secretName;
        return named != null && !named.isBlank()
                ? named.trim()
                : SecurityNames.userSecret(user.getMetadata().getName());
    }

    /** The subject its certificate has: O=scope (what the node grants), CN=the user's name. */
    public static X500Principal subject(DhtUser user) {
        return dev.dht.operator.security.tls.ClientCredentials.subject(
                user.getSpec().scope, user.getMetadata().getName());
    }

    /** tls.crt, tls.key and ca.crt (the CAs the client trusts for the members). */
    public static Secret secret(DhtUser user, Credential credential, List<X509Certificate> trusted) {
        var data = new LinkedHashMap<String, String>();
        data.put(SecurityNames.TLS_CERT, credential.certificatePem());
        data.put(SecurityNames.TLS_KEY, credential.keyPem());
        data.put(SecurityNames.CA_CERT, Pem.certificates(trusted));
        var labels = new LinkedHashMap<String, String>();
        labels.put(Labels.MANAGED_BY, Labels.OPERATOR);
        labels.put(CLIENT_OF, user.getSpec().cluster);
        return Hashing.stamp(new SecretBuilder()
                .withMetadata(Owners.metadata(user, secretName(user), labels))
                .withType("kubernetes.io/tls")
                .withData(SecretData.encode(data))
                .build());
    }

    /**
     * @param held the certificate the Secret holds after this reconcile, if any
     * @param ready whether it is of the members' current CA and current
     * @param message what was done or is waited for
     */
    public static DhtUserStatus status(
            DhtUser user, Optional<X509Certificate> held, boolean ready, String message, Instant now) {
        var status = new DhtUserStatus();
        status.secretName = secretName(user);
        held.ifPresent(cert -> {
            status.subject = cert.getSubjectX500Principal().getName(X500Principal.RFC2253);
            status.notAfter =
                    Certificates.notAfter(cert).truncatedTo(ChronoUnit.SECONDS).toString();
        });
        status.message = message;
        var before = user.getStatus() == null
                ? null
                : user.getStatus().conditions.stream()
                        .filter(c -> READY.equals(c.getType()))
                        .findFirst()
                        .orElse(null);
        String value = ready ? "True" : "False";
        String reason = ready ? "Issued" : "Waiting";
        Condition condition = new ConditionBuilder()
                .withType(READY)
                .withStatus(value)
                .withReason(reason)
                .withMessage(message)
                .withObservedGeneration(user.getMetadata().getGeneration())
                .withLastTransitionTime(
                        before != null && value.equals(before.getStatus())
                                ? before.getLastTransitionTime()
                                : now.truncatedTo(ChronoUnit.SECONDS).toString())
                .build();
        status.conditions = List.of(condition);
        return status;
    }
}
