package dev.dht.operator.security.tls;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.Hashing;
import dev.dht.operator.model.Owners;
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

  /** The cluster's CA: its certificate and private key (never mounted into a pod). */
  public static Secret ca(DhtCluster cluster, Credential ca, String replacedFor) {
    var data = new LinkedHashMap<String, String>();
    data.put(SecurityNames.CA_CERT, ca.certificatePem());
    data.put(SecurityNames.CA_KEY, ca.keyPem());
    return secret(cluster, SecurityNames.caSecret(cluster.getMetadata().getName()), "Opaque", data,
        Map.of(TlsState.REPLACED_FOR, replacedFor));
  }

  /** What the members mount: their certificate (tls.crt), its key (tls.key) and the CAs they trust (ca.crt). */
  public static Secret member(DhtCluster cluster, Credential member, List<X509Certificate> trusted,
      String renewedFor) {
    var data = new LinkedHashMap<String, String>();
    data.put(SecurityNames.TLS_CERT, member.certificatePem());
    data.put(SecurityNames.TLS_KEY, member.keyPem());
    data.put(SecurityNames.CA_CERT, Pem.certificates(trusted));
    return secret(cluster, SecurityNames.memberTlsSecret(cluster.getMetadata().getName()), "kubernetes.io/tls", data,
        Map.of(TlsState.RENEWED_FOR, renewedFor));
  }

  static Secret secret(DhtCluster cluster, String name, String type, Map<String, String> texts,
      Map<String, String> annotations) {
    var metadata = Owners.metadata(cluster, name);
    metadata.setAnnotations(new LinkedHashMap<>(annotations));
    return Hashing.stamp(new SecretBuilder()
        .withMetadata(metadata)
        .withType(type)
        .withData(SecretData.encode(texts))
        .build());
  }
}
