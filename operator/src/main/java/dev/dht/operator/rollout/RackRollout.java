package dev.dht.operator.rollout;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.ClusterShape;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Names;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Rolling changes go rack by rack (pure). Each rack's StatefulSet rolls its own pods one at a time; without a gate
 * every rack would roll at once, taking down one member per rack together, which with as many racks as copies is
 * every copy of some keys. So a rack whose pod template changes takes it only once every rack before it is rolled
 * and serving; until then its StatefulSet's partition holds all its pods on the old template.
 */
public final class RackRollout {
  private RackRollout() {}

  /**
   * The racks that must wait: a new template is pending for them (the desired one differs from the live one, or the
   * controller has not rolled it out, or has not yet seen the spec of a rack held back) while some rack before them
   * is not done. A held rack's spec the controller has not seen counts as pending: its old status would otherwise
   * release the rack a moment after it was held. A replica change alone holds nothing.
   *
   * @param racks        the racks in order
   * @param live         their live StatefulSets, by rack (a rack without one is new: nothing to roll)
   * @param desiredHashes the hash of each rack's desired pod template ({@link Labels#TEMPLATE_HASH})
   */
  public static Set<String> held(List<String> racks, Map<String, StatefulSet> live, Map<String, String> desiredHashes) {
    var held = new LinkedHashSet<String>();
    boolean blocked = false;
    for (String rack : racks) {
      StatefulSet sts = live.get(rack);
      if (sts == null) {
        continue;
      }
      boolean pending = !Objects.equals(desiredHashes.get(rack), templateHash(sts)) || !revisionsAgree(sts)
          || !observed(sts) && partition(sts) > 0;
      if (pending && blocked) {
        held.add(rack);
      }
      blocked |= pending || !done(sts);
    }
    return held;
  }

  /**
   * The desired objects with the racks that must wait held behind their partition (a second build only then: the
   * template, hence its hash, does not depend on the partition).
   *
   * @param live the live StatefulSets of the spec's racks, by rack
   */
  public static DesiredState desiredState(DhtCluster cluster, ClusterModel model, ClusterShape shape,
      Map<String, StatefulSet> live) {
    var unheld = DesiredState.of(cluster, model, shape);
    var held = held(model.rackNames(), live, unheld.templateHashes());
    return held.isEmpty() ? unheld : DesiredState.of(cluster, model, new ClusterShape(shape.statefulSetReplicas(),
        shape.topologyMembers(), shape.topologyVersion(), held));
  }

  /** Rolled and serving: the controller saw the latest spec, every pod runs its revision, all ready and available. */
  public static boolean done(StatefulSet sts) {
    var status = sts.getStatus();
    int replicas = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
    return observed(sts) && revisionsAgree(sts) && count(status.getReplicas()) == replicas
        && count(status.getReadyReplicas()) == replicas
        && (status.getAvailableReplicas() == null || status.getAvailableReplicas() == replicas);
  }

  /** What the status says about the rollout, over every rack. */
  public record Summary(int existing, int updated, boolean complete) {}

  /**
   * @param statefulSets the racks' StatefulSets (those that exist)
   * @param target       the members each rack is to hold
   */
  public static Summary summary(String cluster, List<StatefulSet> statefulSets, Layout target) {
    int existing = 0;
    int updated = 0;
    boolean complete = !statefulSets.isEmpty();
    for (String rack : target.racks()) {
      var sts = statefulSets.stream()
          .filter(s -> Names.statefulSet(cluster, rack).equals(s.getMetadata().getName())).findFirst();
      var status = sts.map(StatefulSet::getStatus).orElseGet(StatefulSetStatus::new);
      existing += count(status.getReplicas());
      updated += count(status.getUpdatedReplicas());
      int wanted = target.get(rack);
      complete &= sts.isPresent() ? observed(sts.get()) && count(status.getReplicas()) == wanted
          && count(status.getUpdatedReplicas()) == wanted && revisionsAgree(sts.get()) : wanted == 0;
    }
    return new Summary(existing, updated, complete);
  }

  static String templateHash(StatefulSet sts) {
    var annotations = sts.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(Labels.TEMPLATE_HASH);
  }

  private static boolean observed(StatefulSet sts) {
    var status = sts.getStatus();
    Long generation = sts.getMetadata().getGeneration();
    return status != null && status.getObservedGeneration() != null
        && (generation == null || status.getObservedGeneration() >= generation);
  }

  private static boolean revisionsAgree(StatefulSet sts) {
    var status = sts.getStatus();
    return status == null || status.getCurrentRevision() == null
        || status.getCurrentRevision().equals(status.getUpdateRevision());
  }

  private static int partition(StatefulSet sts) {
    var strategy = sts.getSpec().getUpdateStrategy();
    return strategy == null || strategy.getRollingUpdate() == null ? 0 : count(strategy.getRollingUpdate().getPartition());
  }

  private static int count(Integer value) {
    return value == null ? 0 : value;
  }

  /** The first held rack, for the status message. */
  public static Optional<String> firstHeld(List<String> racks, Set<String> held) {
    return racks.stream().filter(held::contains).findFirst();
  }
}
