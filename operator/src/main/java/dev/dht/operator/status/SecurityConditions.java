package dev.dht.operator.status;

import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.TlsStatus;
import dev.dht.operator.security.auth.AuthStatuses;
import dev.dht.operator.security.tls.TlsStatuses;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Optional;

/**
 * Adds the security part to a status: {@code status.tls} and the conditions CertificatesValid (with TLS on),
 * ClientCertificatesValid (with client TLS on) and CredentialsReady (with client tokens on). Pure; a condition keeps
 * its transition time while it holds.
 */
public final class SecurityConditions {
    public static final String CERTIFICATES = TlsStatuses.CONDITION;
    public static final String CLIENT_CERTIFICATES = TlsStatuses.CLIENT_CONDITION;
    public static final String CREDENTIALS = AuthStatuses.CONDITION;

    private SecurityConditions() {}

    public static void apply(
            DhtClusterStatus status,
            Optional<DhtClusterStatus> previous,
            TlsStatus tls,
            Optional<TlsStatuses.Verdict> certificates,
            Optional<TlsStatuses.Verdict> clientCertificates,
            Optional<AuthStatuses.Verdict> credentials,
            Instant now) {
        var before = previous.map(p -> p.conditions).orElse(null);
        status.tls = tls;
        var conditions = new ArrayList<>(status.conditions);
        certificates.ifPresent(v -> conditions.add(Conditions.condition(
                before, CERTIFICATES, v.valid(), v.reason(), v.message(), status.observedGeneration, now)));
        clientCertificates.ifPresent(v -> conditions.add(Conditions.condition(
                before, CLIENT_CERTIFICATES, v.valid(), v.reason(), v.message(), status.observedGeneration, now)));
        credentials.ifPresent(v -> conditions.add(Conditions.condition(
                before, CREDENTIALS, v.ready(), v.reason(), v.message(), status.observedGeneration, now)));
        status.conditions = conditions;
    }
}
