package dev.dht.operator.scaling;

import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Member;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.Topology;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the scaling decision is made from, all of it observed (nothing here is remembered by the operator except
 * {@code settled}, which comes from the status because only the members can tell it, and only while they run).
 *
 * @param target              spec.replicas
 * @param drained             racks to empty (spec.racks[].drain)
 * @param statefulSetReplicas each rack's live StatefulSet's spec.replicas (0 for a rack without one); empty when no
 *                            StatefulSet of the cluster exists
 * @param topology            the live topology's lines; empty when there is no topology ConfigMap
 * @param topologyMembers     its members per rack (of the spec's racks)
 * @param settled             the members reported idle on the live topology's version (status.settledTopologyVersion)
 * @param ready               members whose pod is ready now
 * @param rolloutComplete     every rack's StatefulSet runs its current pod template on every pod (no rolling update)
 * @param retainOnScaleDown   a leaving member's volume is kept: wait for its cleanup too
 */
public record ScaleObservation(
        int target,
        Set<String> drained,
        Optional<Layout> statefulSetReplicas,
        Optional<List<String>> topology,
        Layout topologyMembers,
        boolean settled,
        Set<Member> ready,
        boolean rolloutComplete,
        boolean retainOnScaleDown) {

    public ScaleObservation {
        drained = Set.copyOf(drained);
        topology = topology.map(List::copyOf);
        ready = Set.copyOf(ready);
    }

    /**
     * Reads the live objects.
     *
     * @param statefulSets   the live StatefulSets of the spec's racks, by rack name
     * @param settledVersion the status's settledTopologyVersion: settled means it is the live topology's version
     */
    public static ScaleObservation observe(
            ClusterModel model,
            Map<String, StatefulSet> statefulSets,
            Optional<ConfigMap> topology,
            Collection<Pod> pods,
            Optional<Long> settledVersion) {
        var ready = new HashSet<Member>();
        for (Pod pod : pods) {
            if (PodReadiness.isReady(pod)) {
                Names.member(model.name(), pod.getMetadata().getName()).ifPresent(ready::add);
            }
        }
        boolean settled = topology.flatMap(Topology::currentVersion)
                .map(version -> settledVersion.isPresent() && Objects.equals(version, settledVersion.get()))
                .orElse(false);
        var racks = model.rackNames();
        Optional<Layout> replicas = statefulSets.isEmpty()
                ? Optional.empty()
                : Optional.of(new Layout(
                        racks,
                        racks.stream()
                                .map(r -> Optional.ofNullable(statefulSets.get(r))
                                        .map(s -> s.getSpec().getReplicas() == null
                                                ? 1
                                                : s.getSpec().getReplicas())
                                        .orElse(0))
                                .toList()));
        var listed = topology.map(t -> Topology.parse(model.name(), t)).orElse(List.of());
        var members = new Layout(
                racks,
                racks.stream()
                        .map(r -> (int)
                                listed.stream().filter(m -> m.rack().equals(r)).count())
                        .toList());
        boolean rolledOut = statefulSets.values().stream()
                .allMatch(s -> rolloutComplete(
                        s,
                        pods.stream()
                                .filter(p -> Names.member(
                                                model.name(), p.getMetadata().getName())
                                        .map(m -> Names.statefulSet(model.name(), m.rack())
                                                .equals(s.getMetadata().getName()))
                                        .orElse(false))
                                .toList()));
        return new ScaleObservation(
                model.replicas(),
                model.drainedRacks(),
                replicas,
                topology.map(Topology::members),
                members,
                settled,
                ready,
                rolledOut,
                model.retainOnScaleDown());
    }

    /**
     * No rolling update runs: the controller's revisions agree (once it has seen the latest spec), and every pod
     * runs the template's node config. The second check covers a template the controller has not seen yet (a
     * replica change alone also makes it lag, which must not count as a rollout).
     */
    static boolean rolloutComplete(StatefulSet statefulSet, Collection<Pod> pods) {
        var status = statefulSet.getStatus();
        Long generation = statefulSet.getMetadata().getGeneration();
        boolean observed = status != null
                && status.getObservedGeneration() != null
                && (generation == null || status.getObservedGeneration() >= generation);
        if (observed
                && status.getCurrentRevision() != null
                && !status.getCurrentRevision().equals(status.getUpdateRevision())) {
            return false;
        }
        var template = statefulSet.getSpec().getTemplate();
        String hash = template == null
                        || template.getMetadata() == null
                        || template.getMetadata().getAnnotations() == null
                ? null
                : template.getMetadata().getAnnotations().get(Labels.CONFIG_HASH);
        return pods.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .allMatch(p -> Objects.equals(hash, configHash(p)));
    }

    private static String configHash(Pod pod) {
        var annotations = pod.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(Labels.CONFIG_HASH);
    }

    /** The same observation with nothing to change: the target is what the topology lists, nothing drains. */
    public ScaleObservation holdingStill() {
        return new ScaleObservation(
                topologyMembers.total(),
                Set.of(),
                statefulSetReplicas,
                topology,
                topologyMembers,
                settled,
                ready,
                rolloutComplete,
                retainOnScaleDown);
    }

    /** The members' URLs in the live topology (a line's rack left out). */
    public List<String> topologyUrls() {
        return topology.orElse(List.of()).stream().map(Topology::urlOf).toList();
    }

    public boolean ready(Member member) {
        return ready.contains(member);
    }
}
