package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import java.util.function.Consumer;

/** Test clusters: every case starts from the same base cluster and changes one thing. */
public final class Clusters {
  public static final Platform PLATFORM = new Platform("dht-node:test", "cluster.local");

  private Clusters() {}

  public static DhtCluster cluster(Consumer<DhtClusterSpec> change) {
    var cluster = new DhtCluster();
    cluster.getMetadata().setName("kv");
    cluster.getMetadata().setNamespace("prod");
    cluster.getMetadata().setUid("0f1e2d3c-uid");
    cluster.getMetadata().setGeneration(1L);
    var spec = new DhtClusterSpec();
    change.accept(spec);
    cluster.setSpec(spec);
    return cluster;
  }

  public static DesiredState desired(Consumer<DhtClusterSpec> change) {
    var cluster = cluster(change);
    return DesiredState.of(cluster, ClusterModel.from(cluster, PLATFORM), 1);
  }
}
