package dev.dht.operator.status;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Names;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Computes a cluster's status from what is observed: the StatefulSet's rollout and each member's
 * pod. Pure: equal inputs give an equal status, so an unchanged cluster causes no status write.
 */
public final class StatusCalculator {
  static final int MAX_MESSAGE = 1024;

  private StatusCalculator() {}

  public static DhtClusterStatus compute(DhtCluster cluster, DesiredState desired, Optional<StatefulSet> statefulSet,
      Collection<Pod> pods, Instant now) {
    var model = desired.model();
    var previous = cluster.getStatus() != null ? cluster.getStatus() : new DhtClusterStatus();
    int wanted = model.replicas();
    Map<String, Pod> podsByName = pods.stream()
        .collect(Collectors.toMap(p -> p.getMetadata().getName(), Function.identity(), (a, b) -> a));

    var members = new ArrayList<MemberStatus>();
    List<String> urls = model.memberUrls();
    for (int i = 0; i < wanted; i++) {
      String name = Names.pod(model.name(), i);
      boolean ready = isReady(podsByName.get(name));
      boolean wasUp = previous.members != null && previous.members.stream()
          .anyMatch(m -> name.equals(m.name) && m.state == MemberState.Up);
      members.add(new MemberStatus(name, urls.get(i), ready || wasUp ? MemberState.Up : MemberState.Joining, ready));
    }
    int ready = (int) members.stream().filter(m -> m.ready).count();
    List<String> notReady = members.stream().filter(m -> !m.ready).map(m -> m.name).toList();

    var sts = statefulSet.map(StatefulSet::getStatus).orElseGet(StatefulSetStatus::new);
    int existing = zeroIfNull(sts.getReplicas());
    int updated = zeroIfNull(sts.getUpdatedReplicas());
    boolean observed = statefulSet.isPresent() && sts.getObservedGeneration() != null
        && sts.getObservedGeneration() >= statefulSet.get().getMetadata().getGeneration();
    boolean rolledOut = observed && existing == wanted && updated == wanted
        && (sts.getCurrentRevision() == null || Objects.equals(sts.getCurrentRevision(), sts.getUpdateRevision()));
    boolean joining = members.stream().anyMatch(m -> m.state == MemberState.Joining);

    Phase phase;
    String message;
    String readySummary = ready + "/" + wanted + " members ready";
    if (rolledOut && ready == wanted) {
      phase = Phase.Ready;
      message = readySummary;
    } else if (statefulSet.isEmpty() || previous.phase == null || previous.phase == Phase.Creating) {
      phase = Phase.Creating;
      message = "creating " + wanted + " members: " + readySummary;
    } else if (!rolledOut && (existing != wanted || joining)) {
      phase = Phase.Scaling;
      message = "scaling to " + wanted + " members: " + readySummary;
    } else if (!rolledOut) {
      phase = Phase.Updating;
      message = "rolling update, one member at a time: " + updated + "/" + wanted
          + " members on the new pod template, " + readySummary;
    } else {
      phase = Phase.Degraded;
      message = readySummary + "; not ready: " + String.join(", ", notReady);
    }

    var status = new DhtClusterStatus();
    status.observedGeneration = cluster.getMetadata().getGeneration();
    status.phase = phase;
    status.replicas = existing;
    status.readyReplicas = ready;
    status.replicationFactor = model.replicationFactor();
    status.selector = Labels.selectorString(model.name());
    status.topologyVersion = desired.topologyVersion();
    status.members = members;
    status.conditions = conditions(previous.conditions, phase, message, status.observedGeneration, now);
    return status;
  }

  /** The status after a failed reconcile: what was last observed, with the failure in the conditions. */
  public static DhtClusterStatus failed(DhtCluster cluster, String failure, Instant now) {
    var previous = cluster.getStatus() != null ? cluster.getStatus() : new DhtClusterStatus();
    var status = new DhtClusterStatus();
    status.observedGeneration = cluster.getMetadata().getGeneration();
    status.phase = Phase.Failed;
    status.replicas = previous.replicas;
    status.readyReplicas = previous.readyReplicas;
    status.replicationFactor = previous.replicationFactor;
    status.selector = previous.selector != null ? previous.selector
        : Labels.selectorString(cluster.getMetadata().getName());
    status.topologyVersion = previous.topologyVersion;
    status.members = previous.members != null ? previous.members : new ArrayList<>();
    status.conditions = conditions(previous.conditions, Phase.Failed, truncate(failure), status.observedGeneration,
        now);
    return status;
  }

  static List<Condition> conditions(List<Condition> previous, Phase phase, String message, Long generation,
      Instant now) {
    boolean progressing = phase == Phase.Creating || phase == Phase.Scaling || phase == Phase.Updating;
    String reason = switch (phase) {
      case Ready -> "AllMembersReady";
      case Creating -> "Creating";
      case Scaling -> "Scaling";
      case Updating -> "RollingUpdate";
      case Degraded -> "MembersNotReady";
      case Failed -> "ReconcileFailed";
    };
    return List.of(
        Conditions.condition(previous, Conditions.READY, phase == Phase.Ready, reason, message, generation, now),
        Conditions.condition(previous, Conditions.PROGRESSING, progressing,
            progressing || phase == Phase.Failed ? reason : "RolloutComplete", message, generation, now),
        Conditions.condition(previous, Conditions.DEGRADED, phase == Phase.Degraded || phase == Phase.Failed,
            phase == Phase.Degraded || phase == Phase.Failed ? reason : "AsExpected", message, generation, now));
  }

  /** Ready as the kubelet reports it, and not on its way out. */
  public static boolean isReady(Pod pod) {
    if (pod == null || pod.getMetadata().getDeletionTimestamp() != null || pod.getStatus() == null
        || pod.getStatus().getConditions() == null) {
      return false;
    }
    return pod.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static int zeroIfNull(Integer value) {
    return value == null ? 0 : value;
  }

  private static String truncate(String message) {
    String m = message == null || message.isBlank() ? "reconcile failed" : message;
    return m.length() <= MAX_MESSAGE ? m : m.substring(0, MAX_MESSAGE - 3) + "...";
  }
}
