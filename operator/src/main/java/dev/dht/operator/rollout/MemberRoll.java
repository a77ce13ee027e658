package dev.dht.operator.rollout;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.ClusterShape;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.Hashing;
import dev.dht.operator.model.Names;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A new pod template reaches the members one at a time (pure), as Scylla Operator rolls by StatefulSet partition and
 * cass-operator rack by rack: each rack's StatefulSet gets the template with its partition at its replica count (no
 * pod takes it), then the partition moves down one member at a time, highest ordinal first, rack after rack. It
 * moves only when the member rolled before is back (its pod on the new revision and ready) and the cluster is
 * settled: every member serving, no hint waiting for delivery, no data movement (the caller checks those gates, see
 * {@link #gate}). A member that does not come back stops the roll where it is; it goes on by itself when the member
 * is back. {@code spec.upgrade.canary: N} stops it once N members run the new template.
 */
public final class MemberRoll {
    public static final String CONDITION = "Rolled";

    private MemberRoll() {}

    /**
     * One rack as observed.
     *
     * @param replicas  the StatefulSet replicas the desired state asks for
     * @param changed   the desired StatefulSet differs from the live one in more than replicas and partition (a new
     *                  pod template, or anything else the controller rolls for)
     * @param pods      the rack's pods by ordinal
     */
    public record RackView(
            String rack, int replicas, Optional<StatefulSet> live, boolean changed, Map<Integer, Pod> pods) {}

    /** The member to roll next, once the gates are open: the rack's partition moves to its ordinal. */
    public record Step(String rack, int partition, String pod) {}

    /**
     * @param partitions each rack's partition to write
     * @param next       the member to roll next, if the gates are open (empty: none may be rolled now)
     * @param rolling    a roll is in progress (some member is not on its rack's newest template)
     * @param reason     the Rolled condition's reason
     * @param message    what the roll does or waits for, naming the member
     */
    public record Plan(
            Map<String, Integer> partitions,
            Optional<Step> next,
            boolean rolling,
            int updated,
            int total,
            String reason,
            String message) {

        /** The plan after the caller looked at the gates: the step taken if nothing blocks it. */
        public Plan gate(Optional<String> blocker) {
            if (next.isEmpty()) {
                return this;
            }
            if (blocker.isPresent()) {
                return held(
                        "WaitingForCluster",
                        "next: " + next.get().pod() + " (" + updated + "/" + total
                                + " members on the new template); waiting: " + blocker.get());
            }
            var moved = new LinkedHashMap<>(partitions);
            moved.put(next.get().rack(), next.get().partition());
            return new Plan(
                    moved,
                    next,
                    true,
                    updated,
                    total,
                    "Rolling",
                    "rolling " + next.get().pod() + " (" + updated + "/" + total + " members on the new template)");
        }

        /** A roll in progress that rolls no member now: the partitions stay where they are, for {@code reason}. */
        private Plan held(String reason, String message) {
            return new Plan(partitions, Optional.empty(), true, updated, total, reason, message);
        }
    }

    /**
     * @param cluster the cluster's name (pod names)
     * @param canary  spec.upgrade.canary: at most this many members on a new template (empty: all)
     */
    public static Plan decide(String cluster, List<RackView> racks, Optional<Integer> canary) {
        var partitions = new LinkedHashMap<String, Integer>();
        int updated = 0;
        int total = 0;
        boolean rolling = false;
        Optional<Step> next = Optional.empty();
        String reason = "Done";
        String message = "every member runs its rack's newest pod template";
        boolean blocked = false;
        for (RackView view : racks) {
            int n = view.replicas();
            total += n;
            if (view.live().isEmpty()) {
                partitions.put(view.rack(), 0); // a new rack: nothing to roll
                continue;
            }
            StatefulSet sts = view.live().get();
            if (view.changed()) {
                // The new template goes in with every pod held; the next reconcile starts the roll when it may.
                partitions.put(view.rack(), n);
                rolling = true;
                if (!blocked) {
                    reason = "Rolling";
                    message = "new pod template for " + rackName(view) + "; its members roll one at a time";
                }
                blocked = true;
                continue;
            }
            int partition = Math.min(partition(sts), n);
            String revision = sts.getStatus() == null ? null : sts.getStatus().getUpdateRevision();
            boolean observed = RackRollout.observed(sts) && revision != null;
            int rackUpdated = 0;
            Optional<Integer> outdatedBelow = Optional.empty();
            Optional<String> notBack = Optional.empty();
            for (int ordinal = n - 1; ordinal >= 0; ordinal--) {
                Pod pod = view.pods().get(ordinal);
                boolean onRevision = observed && pod != null && revision.equals(revisionOf(pod));
                if (onRevision) {
                    rackUpdated++;
                }
                if (ordinal >= partition) {
                    if (notBack.isEmpty() && (!onRevision || !ready(pod))) {
                        notBack = Optional.of(podName(cluster, view, ordinal) + " is not back"
                                + (pod == null ? " (no pod)" : ": " + why(pod)));
                    }
                } else if (!onRevision && outdatedBelow.isEmpty()) {
                    outdatedBelow = Optional.of(ordinal);
                }
            }
            updated += rackUpdated;
            if (!observed) {
                partitions.put(view.rack(), partition);
                rolling |= partition > 0;
                blocked |= partition > 0;
                continue;
            }
            if (outdatedBelow.isEmpty()) {
                partitions.put(view.rack(), 0); // every pod on the newest revision (or nothing was held)
                if (notBack.isPresent()) {
                    rolling |= partition > 0 || rackUpdated < n;
                    if (!blocked) {
                        reason = "MemberNotBack";
                        message = notBack.get();
                    }
                    blocked = true;
                }
                continue;
            }
            partitions.put(view.rack(), partition);
            rolling = true;
            if (blocked) {
                continue;
            }
            blocked = true;
            if (notBack.isPresent()) {
                reason = "MemberNotBack";
                message = "the roll stops until it is: " + notBack.get();
            } else {
                next = Optional.of(
                        new Step(view.rack(), outdatedBelow.get(), podName(cluster, view, outdatedBelow.get())));
            }
        }
        var plan = new Plan(partitions, next, rolling, updated, total, reason, message);
        if (next.isPresent() && canary.isPresent() && updated >= canary.get()) {
            return plan.held(
                    "Canary",
                    updated + "/" + total
                            + " members run the new template (spec.upgrade.canary: " + canary.get()
                            + "); raise or remove"
                            + " spec.upgrade.canary to roll the others, or set the previous version back to roll back");
        }
        return plan;
    }

    private static String rackName(RackView view) {
        return view.rack().isEmpty() ? "the members" : "rack " + view.rack();
    }

    private static String podName(String cluster, RackView view, int ordinal) {
        return view.rack().isEmpty() ? Names.pod(cluster, ordinal) : Names.pod(cluster, view.rack(), ordinal);
    }

    /** Why a pod is not ready, as its containers say (CrashLoopBackOff, ImagePullBackOff, ...), else "not ready". */
    static String why(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            return "terminating";
        }
        if (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null) {
            for (ContainerStatus c : pod.getStatus().getContainerStatuses()) {
                if (c.getState() != null && c.getState().getWaiting() != null) {
                    var w = c.getState().getWaiting();
                    return "container " + c.getName() + " waiting: " + w.getReason()
                            + (w.getMessage() == null ? "" : " (" + w.getMessage() + ")");
                }
            }
        }
        return ready(pod) ? "on the old template" : "not ready";
    }

    static boolean ready(Pod pod) {
        return pod != null
                && pod.getMetadata().getDeletionTimestamp() == null
                && pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    static String revisionOf(Pod pod) {
        var labels = pod.getMetadata().getLabels();
        return labels == null ? null : labels.get("controller-revision-hash");
    }

    static int partition(StatefulSet sts) {
        var strategy = sts.getSpec().getUpdateStrategy();
        return strategy == null
                        || strategy.getRollingUpdate() == null
                        || strategy.getRollingUpdate().getPartition() == null
                ? 0
                : strategy.getRollingUpdate().getPartition();
    }

    /**
     * Each rack as observed: whether its desired StatefulSet differs from the live one in more than replicas and
     * partition (the desired one built with the live replicas and partition compared by content stamp), and its pods.
     */
    public static List<RackView> views(
            DhtCluster cluster,
            ClusterModel model,
            ClusterShape shape,
            Map<String, StatefulSet> live,
            Collection<Pod> pods) {
        var replicas = shape.statefulSetReplicas();
        var partitions = new LinkedHashMap<String, Integer>();
        for (var e : live.entrySet()) {
            Integer r = e.getValue().getSpec().getReplicas();
            replicas = replicas.with(e.getKey(), r == null ? 1 : r);
            partitions.put(e.getKey(), partition(e.getValue()));
        }
        var probe = DesiredState.of(
                cluster,
                model,
                new ClusterShape(replicas, shape.topologyMembers(), shape.topologyVersion(), partitions));
        var out = new ArrayList<RackView>();
        for (int i = 0; i < model.racks().size(); i++) {
            String rack = model.racks().get(i).name();
            var sts = Optional.ofNullable(live.get(rack));
            boolean changed = sts.isPresent()
                    && !Objects.equals(Hashing.stampOf(probe.statefulSets().get(i)), Hashing.stampOf(sts.get()));
            String prefix = Names.statefulSet(model.name(), rack) + "-";
            var byOrdinal = new TreeMap<Integer, Pod>();
            for (Pod pod : pods) {
                String name = pod.getMetadata().getName();
                if (name.startsWith(prefix) && name.substring(prefix.length()).matches("[0-9]+")) {
                    byOrdinal.put(Integer.parseInt(name.substring(prefix.length())), pod);
                }
            }
            out.add(new RackView(rack, shape.statefulSetReplicas().get(rack), sts, changed, byOrdinal));
        }
        return out;
    }
}
