package dev.dht.operator.testing;

import dev.dht.operator.model.Layout;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Records every change of a cluster's shape as the API server stored it: the members of each rack in the topology
 * ConfigMap and each rack's StatefulSet's spec.replicas. Both come from watches; the API server (etcd) orders all
 * writes by resourceVersion, which puts the streams back in the order the writes happened.
 */
public final class ShapeHistory implements AutoCloseable {
    /** One state of a cluster without racks: members listed in the topology, replicas of the StatefulSet. */
    public record Shape(int members, int replicas) {
        @Override
        public String toString() {
            return "topology " + members + "/StatefulSet " + replicas;
        }
    }

    /** One state with racks: members per rack in the topology, replicas per rack. */
    public record RackShape(Layout members, Layout replicas) {
        @Override
        public String toString() {
            return "topology " + members + " / StatefulSets " + replicas;
        }
    }

    /** A change of one rack's topology members or StatefulSet replicas. */
    private record Change(long resourceVersion, Map<String, Integer> topology, String rack, int replicas) {}

    private final String cluster;
    private final List<String> racks;
    private final List<Change> changes = new ArrayList<>();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();

    /** A cluster without racks. */
    public ShapeHistory(KubernetesClient client, String namespace, String cluster) {
        this(client, namespace, cluster, List.of(""));
    }

    public ShapeHistory(KubernetesClient client, String namespace, String cluster, List<String> racks) {
        this.cluster = cluster;
        this.racks = List.copyOf(racks);
        informers.add(client.configMaps()
                .inNamespace(namespace)
                .withName(Names.topologyConfigMap(cluster))
                .inform(handler(null)));
        for (String rack : racks) {
            informers.add(client.apps()
                    .statefulSets()
                    .inNamespace(namespace)
                    .withName(Names.statefulSet(cluster, rack))
                    .inform(handler(rack)));
        }
    }

    private <T extends HasMetadata> ResourceEventHandler<T> handler(String rack) {
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
                long version = Long.parseLong(object.getMetadata().getResourceVersion());
                var change = rack == null
                        ? new Change(version, perRack(Topology.parse(cluster, (ConfigMap) object)), null, 0)
                        : new Change(
                                version,
                                null,
                                rack,
                                ((StatefulSet) object).getSpec().getReplicas());
                synchronized (changes) {
                    changes.add(change);
                }
            }
        };
    }

    private Map<String, Integer> perRack(List<dev.dht.operator.model.Member> members) {
        var out = new HashMap<String, Integer>();
        members.forEach(m -> out.merge(m.rack(), 1, Integer::sum));
        return out;
    }

    /** The distinct shapes in the order they were stored, from the first moment every object existed. */
    public List<RackShape> rackShapes() {
        List<Change> ordered;
        synchronized (changes) {
            ordered = new ArrayList<>(changes);
        }
        ordered.sort(Comparator.comparingLong(Change::resourceVersion));
        var out = new ArrayList<RackShape>();
        Map<String, Integer> topology = null;
        var replicas = new HashMap<String, Integer>();
        for (var change : ordered) {
            if (change.rack() == null) {
                topology = change.topology();
            } else {
                replicas.put(change.rack(), change.replicas());
            }
            if (topology != null && replicas.keySet().containsAll(racks)) {
                var members = topology;
                var shape = new RackShape(
                        new Layout(
                                racks,
                                racks.stream()
                                        .map(r -> members.getOrDefault(r, 0))
                                        .toList()),
                        new Layout(racks, racks.stream().map(replicas::get).toList()));
                if (out.isEmpty() || !out.getLast().equals(shape)) {
                    out.add(shape);
                }
            }
        }
        return out;
    }

    /** The shapes of a cluster without racks. */
    public List<Shape> shapes() {
        return rackShapes().stream()
                .map(s -> new Shape(s.members().total(), s.replicas().total()))
                .toList();
    }

    @Override
    public void close() {
        informers.forEach(SharedIndexInformer::close);
    }
}
