package dev.dht.operator.security.tls;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.IssuerRef;
import dev.dht.operator.model.Hashing;
import dev.dht.operator.model.Owners;
import dev.dht.operator.security.CertificateSet;
import dev.dht.operator.security.SecurityModel;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Mode CertManager: the cert-manager {@code Certificate} whose Secret the members mount. Built as a generic object,
 * so that the operator needs neither cert-manager's classes nor its CRD unless a cluster asks for it. The key is
 * PKCS#8 (the nodes read no other encoding) and rotated on each renewal.
 */
public final class CertManagerCertificate {
    public static final String KIND = "Certificate";
    public static final String CRD = "certificates.cert-manager.io";
    public static final String GROUP = "cert-manager.io";
    public static final String VERSION = "v1";
    public static final String API_VERSION = GROUP + "/" + VERSION;
    public static final String PLURAL = "certificates";

    private CertManagerCertificate() {}

    public static GenericKubernetesResource certificate(DhtCluster cluster, SecurityModel.Tls tls) {
        var issuer = tls.issuer().orElseThrow(() -> new IllegalArgumentException("mode CertManager without issuerRef"));
        var spec = spec(tls.secretName(), tls, issuer);
        spec.put("dnsNames", List.of(tls.memberDnsName()));
        spec.put("usages", List.of("digital signature", "key encipherment", "server auth", "client auth"));
        return resource(cluster, tls.secretName(), spec);
    }

    /**
     * issuer CertManager of the client port: the members' certificate (the client Service's and the members' names,
     * localhost and 127.0.0.1; serverAuth, and clientAuth for the profiler sidecar's calls from inside the pod).
     */
    public static GenericKubernetesResource clientPort(DhtCluster cluster, SecurityModel.ClientTls tls) {
        var spec = spec(tls.secretName(), tls, tls.issuerRef().orElseThrow());
        spec.put("dnsNames", tls.dnsNames());
        spec.put("ipAddresses", tls.ipAddresses());
        spec.put("usages", List.of("digital signature", "key encipherment", "server auth", "client auth"));
        return resource(cluster, tls.secretName(), spec);
    }

    /**
     * issuer CertManager of the client port: a client certificate the operator keeps (its own, admin; the benchmark
     * Jobs', read-write), subject O=scope, CN=commonName, as the node reads scopes.
     */
    public static GenericKubernetesResource client(
            DhtCluster cluster, SecurityModel.ClientTls tls, String secretName, String commonName, String scope) {
        var spec = spec(secretName, tls, tls.issuerRef().orElseThrow());
        spec.put("commonName", commonName);
        spec.put("subject", Map.of("organizations", List.of(scope)));
        spec.put("usages", List.of("digital signature", "key encipherment", "client auth"));
        return resource(cluster, secretName, spec);
    }

    /** The CN of the operator's own client certificate. */
    public static final String OPERATOR_NAME = "dht-operator";

    private static LinkedHashMap<String, Object> spec(String secretName, CertificateSet set, IssuerRef issuer) {
        var spec = new LinkedHashMap<String, Object>();
        spec.put("secretName", secretName);
        spec.put("duration", goDuration(set.certificateDuration()));
        spec.put("renewBefore", goDuration(set.renewBefore()));
        spec.put(
                "privateKey",
                Map.of("algorithm", "ECDSA", "size", 256, "encoding", "PKCS8", "rotationPolicy", "Always"));
        spec.put("issuerRef", Map.of("name", issuer.name, "kind", issuer.kind, "group", issuer.group));
        return spec;
    }

    private static GenericKubernetesResource resource(DhtCluster cluster, String name, Map<String, Object> spec) {
        var resource = new GenericKubernetesResource();
        resource.setApiVersion(API_VERSION);
        resource.setKind(KIND);
        resource.setMetadata(Owners.metadata(cluster, name));
        resource.setAdditionalProperty("spec", spec);
        return Hashing.stamp(resource);
    }

    /** cert-manager reads Go durations: hours are exact for what the spec allows (minutes, hours, days). */
    static String goDuration(Duration duration) {
        long minutes = duration.toMinutes();
        return minutes % 60 == 0 ? (minutes / 60) + "h" : minutes + "m";
    }
}
