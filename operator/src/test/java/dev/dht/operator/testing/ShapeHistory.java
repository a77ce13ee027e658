package dev.dht.operator.testing;

import dev.dht.operator.model.Names;
import dev.dht.operator.model.Topology;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Records every change of a cluster's shape as the API server stored it: the number of members in the topology
 * ConfigMap and the StatefulSet's spec.replicas. Both come from watches; the API server (etcd) orders all writes by
 * resourceVersion, which puts the two streams back in the order the writes happened.
 */
public final class ShapeHistory implements AutoCloseable {
  /** One state: members listed in the topology, replicas of the StatefulSet. */
  public record Shape(int members, int replicas) {
    @Override
    public String toString() {
      return "topology " + members + "/StatefulSet " + replicas;
    }
  }

  private record Change(long resourceVersion, boolean topology, int value) {}

  private final List<Change> changes = new ArrayList<>();
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();

  public ShapeHistory(KubernetesClient client, String namespace, String cluster) {
    informers.add(client.configMaps().inNamespace(namespace).withName(Names.topologyConfigMap(cluster))
        .inform(handler(true)));
    informers.add(client.apps().statefulSets().inNamespace(namespace).withName(Names.statefulSet(cluster))
        .inform(handler(false)));
  }

  private <T extends HasMetadata> ResourceEventHandler<T> handler(boolean topology) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T object) {
        record(object);
      }

      @Override
      public void onUpdate(T before, T after) {
        record(after);
      }

      @Override
      public void onDelete(T object, boolean deletedFinalStateUnknown) {}

      private void record(T object) {
        int value = topology ? Topology.members((ConfigMap) object).size()
            : ((StatefulSet) object).getSpec().getReplicas();
        synchronized (changes) {
          changes.add(new Change(Long.parseLong(object.getMetadata().getResourceVersion()), topology, value));
        }
      }
    };
  }

  /** The distinct shapes in the order they were stored, from the first moment both objects existed. */
  public List<Shape> shapes() {
    List<Change> ordered;
    synchronized (changes) {
      ordered = new ArrayList<>(changes);
    }
    ordered.sort(Comparator.comparingLong(Change::resourceVersion));
    var out = new ArrayList<Shape>();
    Integer members = null;
    Integer replicas = null;
    for (var change : ordered) {
      if (change.topology()) {
        members = change.value();
      } else {
        replicas = change.value();
      }
      if (members != null && replicas != null) {
        var shape = new Shape(members, replicas);
        if (out.isEmpty() || !out.get(out.size() - 1).equals(shape)) {
          out.add(shape);
        }
      }
    }
    return out;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }
}
