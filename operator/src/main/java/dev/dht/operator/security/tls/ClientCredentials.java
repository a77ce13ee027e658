package dev.dht.operator.security.tls;

import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.pki.Pem;
import dev.dht.operator.security.pki.PkiException;
import io.fabric8.kubernetes.api.model.Secret;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.security.auth.x500.X500Principal;

/**
 * Client certificates of the client port kept by the operator (a DhtUser's, the operator's own): when one is issued,
 * re-issued or only given the current CA bundle. Pure. A client certificate is signed by the CA that signed the
 * members' current client-port certificate: during a CA replacement that is still the old CA until the members
 * trust and serve the new one (phase 2), so a client never holds a certificate the members do not accept yet; the
 * old CA's key is gone by then, so a certificate due meanwhile waits for phase 2.
 */
public final class ClientCredentials {
    /** What to do with one client's Secret. */
    public enum Step {
        NONE,
        ISSUE,
        BUNDLE,
        WAIT
    }

    /** @param why what happens or is waited for, for the status */
    public record Decision(Step step, String why) {}

    private ClientCredentials() {}

    /** The credential and the CA bundle a Secret holds (empty: missing or unusable). */
    public record Held(Optional<Credential> credential, List<X509Certificate> trusted) {
        public static Held read(Optional<Secret> secret) {
            if (secret.isEmpty()) {
                return new Held(Optional.empty(), List.of());
            }
            try {
                var s = secret.get();
                var credential = Credential.read(
                        SecretData.text(s, SecurityNames.TLS_CERT).orElseThrow(),
                        SecretData.text(s, SecurityNames.TLS_KEY).orElseThrow());
                return new Held(
                        Optional.of(credential),
                        Pem.readCertificates(
                                SecretData.text(s, SecurityNames.CA_CERT).orElse("")));
            } catch (PkiException | java.util.NoSuchElementException e) {
                return new Held(Optional.empty(), List.of()); // unusable: issued anew
            }
        }
    }

    /**
     * @param subject the subject it must have (O=scope, CN=name)
     * @param signer the CA that signs client certificates now (the signer of the members' certificate), if its key is
     *     at hand
     * @param bundle the CAs clients trust for the members now
     */
    public static Decision decide(
            Held held,
            X500Principal subject,
            Optional<Credential> signer,
            List<X509Certificate> bundle,
            java.time.Duration renewBefore,
            Instant now) {
        String why = null;
        if (held.credential().isEmpty()) {
            why = "issuing the client certificate";
        } else {
            var cert = held.credential().get().certificate();
            Instant end = Certificates.notAfter(cert);
            if (!cert.getSubjectX500Principal().equals(subject)) {
                why = "its subject " + cert.getSubjectX500Principal().getName() + " is not " + subject.getName();
            } else if (signer.isPresent()
                    && !Certificates.signedBy(cert, signer.get().certificate())) {
                why = "re-issuing it from the members' current CA";
            } else if (!now.isBefore(end.minus(renewBefore))
                    && end.isBefore(signer.map(c -> Certificates.notAfter(c.certificate()))
                            .orElse(Instant.MAX))) {
                why = "renewing it: it expires at " + end;
            }
        }
        boolean staleBundle = !held.trusted().equals(bundle);
        if (why != null && signer.isPresent()) {
            return new Decision(Step.ISSUE, why);
        }
        if (why != null) {
            String waits =
                    why + " waits for the CA replacement's second phase (the members' CA of the moment has no key"
                            + " at hand)";
            // the bundle cannot wait: the members' next certificate is the new CA's
            return held.credential().isPresent() && staleBundle
                    ? new Decision(Step.BUNDLE, "its ca.crt gets the members'" + " current CA bundle; " + waits)
                    : new Decision(Step.WAIT, waits);
        }
        if (staleBundle) {
            return new Decision(Step.BUNDLE, "its ca.crt gets the members' current CA bundle");
        }
        return new Decision(
                Step.NONE,
                "valid until " + Certificates.notAfter(held.credential().get().certificate()));
    }

    /** The subject of a client certificate of this scope and name, as CertificateAuthority.issueClient writes it. */
    public static X500Principal subject(String scope, String name) {
        return new X500Principal("CN=" + name + ",O=" + scope);
    }

    /**
     * The CA that signs client certificates now: the operator's client CA if it signed the members' current
     * certificate (steady, or a replacement's phase 2 and 3), else none (phase 1: the members still serve the old
     * CA's certificate, whose key was replaced).
     */
    public static Optional<Credential> signer(TlsState state) {
        if (state.ca().isEmpty() || state.member().isEmpty()) {
            return Optional.empty();
        }
        var ca = state.ca().get();
        return Certificates.signedBy(state.member().get().certificate(), ca.certificate())
                ? Optional.of(ca)
                : Optional.empty();
    }
}
