package dev.dht.operator.nodeadmin;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.auth.AuthSecrets;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/**
 * The operator's own admin token of a cluster whose nodes require tokens ({@code spec.auth}, on by default), for
 * the admin calls of reconcilers that have no cache of the cluster's Secrets (backups, schedules): read from the
 * tokens Secret the cluster reconciler writes. Empty when the cluster has no tokens, is gone, or the Secret is not
 * written yet (a call without it is refused with 401 by a node that requires tokens, and asked again next poll).
 */
public final class OperatorToken {
  private OperatorToken() {}

  public static Optional<String> read(KubernetesClient client, String namespace, String cluster) {
    var live = client.resources(DhtCluster.class).inNamespace(namespace).withName(cluster).get();
    return live == null ? Optional.empty() : read(client, live);
  }

  public static Optional<String> read(KubernetesClient client, DhtCluster cluster) {
    var secret = SecurityModel.tokensSecret(cluster);
    if (secret.isEmpty()) {
      return Optional.empty();
    }
    Secret live = client.secrets().inNamespace(cluster.getMetadata().getNamespace()).withName(secret.get()).get();
    return AuthSecrets.operatorToken(live);
  }
}
