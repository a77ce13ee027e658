package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;

/** The members' own identity, with no API access (no token is mounted, no role is bound). */
public final class NodeServiceAccount {
  private NodeServiceAccount() {}

  public static ServiceAccount serviceAccount(DhtCluster cluster, ClusterModel model) {
    return new ServiceAccountBuilder()
        .withMetadata(Owners.metadata(cluster, Names.serviceAccount(model.name())))
        .withAutomountServiceAccountToken(false)
        .build();
  }
}
