package dev.dht.operator.security.tls;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.Hashing;
import dev.dht.operator.model.Owners;
import dev.dht.operator.security.CertificateSet;
import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.pki.Pem;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Secrets of mode Operator, from the certificates and keys they hold. Pure (the keys are made elsewhere); owned
 * by the cluster, so they go with it.
 */
public final class TlsSecrets {
    private TlsSecrets() {}

    /** A set's CA: its certificate and private key (never mounted into a pod). */
    public static Secret ca(DhtCluster cluster, CertificateSet set, Credential ca, String replacedFor) {
        var data = new LinkedHashMap<String, String>();
        data.put(SecurityNames.CA_CERT, ca.certificatePem());
        data.put(SecurityNames.CA_KEY, ca.keyPem());
        return secret(cluster, set.caSecret(), "Opaque", data, Map.of(TlsState.REPLACED_FOR, replacedFor));
    }

    /** What the members mount for the member port (the member plane's Secret, no phase grace). */
    public static Secret member(
            DhtCluster cluster, Credential member, List<X509Certificate> trusted, String renewedFor) {
        return credential(
                cluster,
                SecurityNames.memberTlsSecret(cluster.getMetadata().getName()),
                member,
                trusted,
                Map.of(TlsState.RENEWED_FOR, renewedFor));
    }

    /**
     * What the members mount: their certificate (tls.crt), its key (tls.key) and the CAs they trust (ca.crt); with a
     * phase grace, when it was written.
     */
    public static Secret member(
            DhtCluster cluster,
            CertificateSet set,
            Credential member,
            List<X509Certificate> trusted,
            String renewedFor,
            java.time.Instant now) {
        var annotations = new LinkedHashMap<String, String>();
        annotations.put(TlsState.RENEWED_FOR, renewedFor);
        if (!set.phaseGrace().isZero()) {
            annotations.put(
                    TlsState.WRITTEN_AT,
                    now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        }
        return credential(cluster, set.secretName(), member, trusted, annotations);
    }

    /** A certificate, its key and the CAs its holder trusts, as a kubernetes.io/tls Secret. */
    public static Secret credential(
            DhtCluster cluster,
            String name,
            Credential credential,
            List<X509Certificate> trusted,
            Map<String, String> annotations) {
        var data = new LinkedHashMap<String, String>();
        data.put(SecurityNames.TLS_CERT, credential.certificatePem());
        data.put(SecurityNames.TLS_KEY, credential.keyPem());
        data.put(SecurityNames.CA_CERT, Pem.certificates(trusted));
        return secret(cluster, name, "kubernetes.io/tls", data, annotations);
    }

    static Secret secret(
            DhtCluster cluster, String name, String type, Map<String, String> texts, Map<String, String> annotations) {
        var metadata = Owners.metadata(cluster, name);
        metadata.setAnnotations(new LinkedHashMap<>(annotations));
        return Hashing.stamp(new SecretBuilder()
                .withMetadata(metadata)
                .withType(type)
                .withData(SecretData.encode(texts))
                .build());
    }
}
