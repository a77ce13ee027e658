package dev.dht.operator.nodeadmin;

import dev.dht.operator.security.pki.Certificates;
import dev.dht.operator.security.pki.Credential;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What the operator presents on a cluster's client port: its admin token when the nodes require tokens, and when
 * the port speaks TLS the CAs it trusts for the members and its own client certificate (when the members ask for
 * one).
 *
 * @param tls the client port's TLS, or empty for plaintext
 */
public record NodeCredentials(Optional<String> token, Optional<Tls> tls) {
    /**
     * @param trusted the CAs of the members' client-port certificate (the published bundle)
     * @param certificate the operator's client certificate, if it has one
     */
    public record Tls(List<X509Certificate> trusted, Optional<Credential> certificate) {
        /** Names the material: equal keys, equal TLS contexts (the admin client keeps one HTTP client per key). */
        public String key() {
            return trusted.stream().map(Certificates::fingerprint).collect(Collectors.joining(",")) + "|"
                    + certificate
                            .map(c -> Certificates.fingerprint(c.certificate()))
                            .orElse("-");
        }
    }

    public static NodeCredentials none() {
        return new NodeCredentials(Optional.empty(), Optional.empty());
    }

    public static NodeCredentials token(Optional<String> token) {
        return new NodeCredentials(token, Optional.empty());
    }
}
