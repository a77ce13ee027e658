package dev.dht.operator.security.tls;

import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.pki.Pem;
import dev.dht.operator.security.pki.PkiException;
import io.fabric8.kubernetes.api.model.Secret;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * What the live Secrets of a cluster's member plane hold, read and checked: the CA (mode Operator), the members'
 * certificate and key, the CAs they trust. A Secret that cannot be read leaves a {@link #problem} and is not used.
 *
 * @param ca the cluster's CA (mode Operator), if its Secret exists and is sound
 * @param member the members' certificate and key, if that Secret exists and is sound
 * @param trusted the members' ca.crt, in order (empty if that Secret is missing)
 * @param renewedFor the renew request the member certificate answers (annotation on its Secret)
 * @param replacedFor the CA replacement request the CA answers (annotation on its Secret)
 * @param memberSecretExists whether the members' Secret exists at all (sound or not)
 * @param phaseSince when the members' Secret was last written with a phase grace (the client port's), if it was
 */
public record TlsState(
        Optional<Credential> ca,
        Optional<Credential> member,
        List<X509Certificate> trusted,
        String renewedFor,
        String replacedFor,
        boolean memberSecretExists,
        Optional<String> problem,
        Optional<java.time.Instant> phaseSince) {
    /** Annotation on the members' Secret: the renew request (annotation value) the certificate was issued for. */
    public static final String RENEWED_FOR = "dht.dev/renewed-for";
    /** Annotation on the CA Secret: the replacement request (annotation value) the CA was made for. */
    public static final String REPLACED_FOR = "dht.dev/replaced-for";
    /** Annotation on the members' Secret of a set with a phase grace: when it was written (RFC 3339). */
    public static final String WRITTEN_AT = "dht.dev/written-at";

    public static TlsState read(Optional<Secret> caSecret, Optional<Secret> memberSecret) {
        Optional<Credential> ca = Optional.empty();
        Optional<Credential> member = Optional.empty();
        List<X509Certificate> trusted = List.of();
        String problem = null;
        if (caSecret.isPresent()) {
            var s = caSecret.get();
            try {
                ca = Optional.of(
                        Credential.read(required(s, SecurityNames.CA_CERT), required(s, SecurityNames.CA_KEY)));
                if (!Certificates.isCa(ca.get().certificate())) {
                    throw new PkiException(SecurityNames.CA_CERT + " is not a CA certificate");
                }
            } catch (PkiException e) {
                ca = Optional.empty();
                problem = "Secret " + s.getMetadata().getName() + ": " + e.getMessage();
            }
        }
        if (memberSecret.isPresent()) {
            var s = memberSecret.get();
            try {
                member = Optional.of(
                        Credential.read(required(s, SecurityNames.TLS_CERT), required(s, SecurityNames.TLS_KEY)));
                trusted = List.copyOf(Pem.readCertificates(required(s, SecurityNames.CA_CERT)));
            } catch (PkiException e) {
                member = Optional.empty();
                trusted = List.of();
                problem = (problem == null ? "" : problem + "; ") + "Secret "
                        + s.getMetadata().getName() + ": " + e.getMessage();
            }
        }
        return new TlsState(
                ca,
                member,
                trusted,
                SecretData.annotation(memberSecret.orElse(null), RENEWED_FOR),
                SecretData.annotation(caSecret.orElse(null), REPLACED_FOR),
                memberSecret.isPresent(),
                Optional.ofNullable(problem),
                writtenAt(SecretData.annotation(memberSecret.orElse(null), WRITTEN_AT)));
    }

    private static Optional<java.time.Instant> writtenAt(String text) {
        try {
            return text.isEmpty() ? Optional.empty() : Optional.of(java.time.Instant.parse(text));
        } catch (java.time.format.DateTimeParseException e) {
            return Optional.empty(); // an edited annotation: no grace to wait for
        }
    }

    private static String required(Secret secret, String key) {
        return SecretData.text(secret, key).orElseThrow(() -> new PkiException("no key " + key));
    }

    /** Whether the members trust exactly the one CA {@code ca}. */
    boolean trustsOnly(X509Certificate ca) {
        return trusted.size() == 1 && trusted.get(0).equals(ca);
    }

    boolean trusts(X509Certificate ca) {
        return trusted.contains(ca);
    }
}
