package dev.dht.operator.scaling;

import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.Topology;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What the scaling decision is made from, all of it observed (nothing here is remembered by the operator except
 * {@code settled}, which comes from the status because only the members can tell it, and only while they run).
 *
 * @param target              spec.replicas
 * @param statefulSetReplicas the live StatefulSet's spec.replicas; empty when there is none
 * @param topology            the member URLs in the live topology ConfigMap, by ordinal; empty when there is none
 * @param settled             the members reported idle on the live topology's version (status.settledTopologyVersion)
 * @param readyOrdinals       ordinals whose pod is ready now
 * @param rolloutComplete     the StatefulSet runs its current pod template on every pod (no rolling update)
 * @param retainOnScaleDown   a leaving member's volume is kept: wait for its cleanup too
 */
public record ScaleObservation(int target, OptionalInt statefulSetReplicas, Optional<List<String>> topology,
    boolean settled, Set<Integer> readyOrdinals, boolean rolloutComplete, boolean retainOnScaleDown) {

  public ScaleObservation {
    topology = topology.map(List::copyOf);
    readyOrdinals = Set.copyOf(readyOrdinals);
  }

  /**
   * Reads the live objects.
   *
   * @param settledVersion the status's settledTopologyVersion: settled means it is the live topology's version
   */
  public static ScaleObservation observe(ClusterModel model, Optional<StatefulSet> statefulSet,
      Optional<ConfigMap> topology, Collection<Pod> pods, Optional<Long> settledVersion) {
    var ready = new HashSet<Integer>();
    String prefix = Names.statefulSet(model.name()) + "-";
    for (Pod pod : pods) {
      String name = pod.getMetadata().getName();
      if (name.startsWith(prefix) && PodReadiness.isReady(pod)) {
        try {
          ready.add(Integer.parseInt(name.substring(prefix.length())));
        } catch (NumberFormatException ignored) {
          // not one of this cluster's members
        }
      }
    }
    boolean settled = topology.flatMap(Topology::currentVersion)
        .map(version -> settledVersion.isPresent() && Objects.equals(version, settledVersion.get()))
        .orElse(false);
    var sts = statefulSet.map(s -> OptionalInt.of(s.getSpec().getReplicas() == null ? 1 : s.getSpec().getReplicas()))
        .orElse(OptionalInt.empty());
    var members = pods.stream().filter(p -> p.getMetadata().getName().startsWith(prefix)).toList();
    return new ScaleObservation(model.replicas(), sts, topology.map(Topology::members), settled, ready,
        statefulSet.map(s -> rolloutComplete(s, members)).orElse(true), model.retainOnScaleDown());
  }

  /**
   * No rolling update runs: the controller's revisions agree (once it has seen the latest spec), and every pod
   * runs the template's node config. The second check covers a template the controller has not seen yet (a
   * replica change alone also makes it lag, which must not count as a rollout).
   */
  static boolean rolloutComplete(StatefulSet statefulSet, Collection<Pod> pods) {
    var status = statefulSet.getStatus();
    Long generation = statefulSet.getMetadata().getGeneration();
    boolean observed = status != null && status.getObservedGeneration() != null
        && (generation == null || status.getObservedGeneration() >= generation);
    if (observed && status.getCurrentRevision() != null
        && !status.getCurrentRevision().equals(status.getUpdateRevision())) {
      return false;
    }
    var template = statefulSet.getSpec().getTemplate();
    String hash = template == null || template.getMetadata() == null || template.getMetadata().getAnnotations() == null
        ? null : template.getMetadata().getAnnotations().get(Labels.CONFIG_HASH);
    return pods.stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .allMatch(p -> Objects.equals(hash, configHash(p)));
  }

  private static String configHash(Pod pod) {
    var annotations = pod.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(Labels.CONFIG_HASH);
  }

  /** Members in the live topology (0 when there is none). */
  public int members() {
    return topology.map(List::size).orElse(0);
  }

  public int replicas() {
    return statefulSetReplicas.orElse(0);
  }

  public boolean ready(int ordinal) {
    return readyOrdinals.contains(ordinal);
  }
}
