package dev.dht.operator.rollout;

import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Names;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import java.util.List;

/**
 * What the racks' StatefulSets say of a rollout (pure); the roll itself, member by member and rack by rack, is
 * {@link MemberRoll}.
 */
public final class RackRollout {
    private RackRollout() {}

    /** Rolled and serving: the controller saw the latest spec, every pod runs its revision, all ready and available. */
    public static boolean done(StatefulSet sts) {
        var status = sts.getStatus();
        int replicas = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
        return observed(sts)
                && revisionsAgree(sts)
                && count(status.getReplicas()) == replicas
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
                    .filter(s -> Names.statefulSet(cluster, rack)
                            .equals(s.getMetadata().getName()))
                    .findFirst();
            var status = sts.map(StatefulSet::getStatus).orElseGet(StatefulSetStatus::new);
            existing += count(status.getReplicas());
            updated += count(status.getUpdatedReplicas());
            int wanted = target.get(rack);
            complete &= sts.isPresent()
                    ? observed(sts.get())
                            && count(status.getReplicas()) == wanted
                            && count(status.getUpdatedReplicas()) == wanted
                            && revisionsAgree(sts.get())
                    : wanted == 0;
        }
        return new Summary(existing, updated, complete);
    }

    /** Whether the StatefulSet controller has seen the latest spec: its status speaks of that generation. */
    static boolean observed(StatefulSet sts) {
        var status = sts.getStatus();
        Long generation = sts.getMetadata().getGeneration();
        return status != null
                && status.getObservedGeneration() != null
                && (generation == null || status.getObservedGeneration() >= generation);
    }

    private static boolean revisionsAgree(StatefulSet sts) {
        var status = sts.getStatus();
        return status == null
                || status.getCurrentRevision() == null
                || status.getCurrentRevision().equals(status.getUpdateRevision());
    }

    private static int count(Integer value) {
        return value == null ? 0 : value;
    }
}
