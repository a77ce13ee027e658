package dev.dht.operator.security.tls;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.Hashing;
import dev.dht.operator.model.Owners;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.pki.Pem;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;

/** The client port's public object: the CA bundle clients trust for the members. Pure; owned by the cluster. */
public final class ClientPortObjects {
    private ClientPortObjects() {}

    /**
     * The CAs clients trust for the members (key ca.crt): what the members' certificate Secret trusts, the old and the
     * new CA together during a CA replacement. A ConfigMap, as Kubernetes publishes its own (kube-root-ca.crt): a CA
     * certificate is public, and any pod may mount it.
     */
    public static ConfigMap caBundle(DhtCluster cluster, SecurityModel.ClientTls tls, List<X509Certificate> trusted) {
        return Hashing.stamp(new ConfigMapBuilder()
                .withMetadata(Owners.metadata(cluster, tls.caConfigMap()))
                .withData(Map.of(SecurityNames.CA_CERT, Pem.certificates(trusted)))
                .build());
    }
}
