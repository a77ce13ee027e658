package dev.dht.operator.nodeadmin;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.security.SecretData;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.security.auth.AuthSecrets;
import dev.dht.operator.security.pki.Credential;
import dev.dht.operator.security.pki.Pem;
import dev.dht.operator.security.pki.PkiException;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/**
 * The operator's credentials for a cluster's client port ({@link NodeCredentials}), from the objects the cluster
 * reconciler writes: its admin token (tokens Secret), the CA bundle ConfigMap and its own client certificate.
 * Whether the port speaks TLS is what the cluster's status says its members serve (status.tls.client.enabled): an
 * unset spec.tls.client.enabled means different things for new and old clusters. Empty parts while they are not
 * written yet: a call without them is refused by the nodes and asked again next poll.
 */
public final class OperatorAccess {
    private OperatorAccess() {}

    /** From live objects the caller has at hand (the cluster reconciler's caches). */
    public static NodeCredentials of(
            boolean clientTls,
            Optional<Secret> tokens,
            Optional<ConfigMap> bundle,
            Optional<Secret> operatorCertificate) {
        var token = tokens.flatMap(AuthSecrets::operatorToken);
        if (!clientTls) {
            return NodeCredentials.token(token);
        }
        var trusted = bundle.map(ConfigMap::getData)
                .map(d -> d.get(SecurityNames.CA_CERT))
                .map(pem -> {
                    try {
                        return Pem.readCertificates(pem);
                    } catch (PkiException e) {
                        return java.util.List.<java.security.cert.X509Certificate>of();
                    }
                })
                .orElse(java.util.List.of());
        Optional<Credential> certificate = operatorCertificate.flatMap(s -> {
            try {
                return Optional.of(Credential.read(
                        SecretData.text(s, SecurityNames.TLS_CERT).orElseThrow(),
                        SecretData.text(s, SecurityNames.TLS_KEY).orElseThrow()));
            } catch (PkiException | java.util.NoSuchElementException e) {
                return Optional.empty();
            }
        });
        return new NodeCredentials(token, Optional.of(new NodeCredentials.Tls(trusted, certificate)));
    }

    /** Read from the API server (the backup reconcilers have no cache of the cluster's objects). */
    public static NodeCredentials read(KubernetesClient client, String namespace, String cluster) {
        var live = client.resources(DhtCluster.class)
                .inNamespace(namespace)
                .withName(cluster)
                .get();
        return live == null ? NodeCredentials.none() : read(client, live);
    }

    public static NodeCredentials read(KubernetesClient client, DhtCluster cluster) {
        String ns = cluster.getMetadata().getNamespace();
        String name = cluster.getMetadata().getName();
        var tokens = SecurityModel.tokensSecret(cluster)
                .map(s -> client.secrets().inNamespace(ns).withName(s).get());
        boolean tls = clientTls(cluster);
        if (!tls) {
            return of(false, tokens, Optional.empty(), Optional.empty());
        }
        return of(
                true,
                tokens,
                Optional.ofNullable(client.configMaps()
                        .inNamespace(ns)
                        .withName(SecurityNames.clientCaConfigMap(name))
                        .get()),
                Optional.ofNullable(client.secrets()
                        .inNamespace(ns)
                        .withName(SecurityNames.operatorClientSecret(name))
                        .get()));
    }

    /** Whether the cluster's members serve TLS on the client port, as its status last said. */
    public static boolean clientTls(DhtCluster cluster) {
        var status = cluster.getStatus();
        return status != null
                && status.tls != null
                && status.tls.client != null
                && Boolean.TRUE.equals(status.tls.client.enabled);
    }
}
