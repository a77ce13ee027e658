package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.ClusterShape;
import dev.dht.operator.model.Member;
import dev.dht.operator.nodeadmin.MemberAdmin;
import dev.dht.operator.nodeadmin.NodeCredentials;
import dev.dht.operator.rollout.MemberHints;
import dev.dht.operator.rollout.MemberRoll;
import dev.dht.operator.scaling.MemberMovement;
import dev.dht.operator.scaling.PodReadiness;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The roll of a new pod template (rollout/MemberRoll): decides each rack's partition and, when a member may be rolled
 * next, first asks every member whether the cluster is settled (each serving, no hint pending, no data movement).
 */
final class RollStep {
    private static final Logger log = LoggerFactory.getLogger(RollStep.class);
    private final MemberAdmin admin;

    RollStep(MemberAdmin admin) {
        this.admin = admin;
    }

    /**
     * What must hold before the next member rolls, and how the members are asked whether it does.
     *
     * @param steady     no scale in progress (a scale moves data: the roll waits)
     * @param rebuilding members rebuilding their data from the others (data moves: the roll waits)
     * @param members    the members the topology lists
     */
    record Gate(
            boolean steady,
            Collection<Member> rebuilding,
            List<Member> members,
            Function<Member, String> adminUrl,
            NodeCredentials token) {}

    MemberRoll.Plan plan(
            DhtCluster cluster,
            ClusterModel model,
            ClusterShape shape,
            Map<String, StatefulSet> live,
            Collection<Pod> pods,
            Gate gate) {
        var upgrade = cluster.getSpec() == null ? null : cluster.getSpec().upgrade;
        var plan = MemberRoll.decide(
                model.name(),
                MemberRoll.views(cluster, model, shape, live, pods),
                Optional.ofNullable(upgrade == null ? null : upgrade.canary));
        if (plan.next().isEmpty()) {
            return plan;
        }
        var gated = plan.gate(blocker(model, pods, gate));
        if (gated.next().isPresent()) {
            log.info("{}/{}: {}", model.namespace(), model.name(), gated.message());
        }
        return gated;
    }

    /** Why the next member must wait, naming the members; empty when the cluster is settled. */
    private Optional<String> blocker(ClusterModel model, Collection<Pod> pods, Gate gate) {
        var rebuilding = gate.rebuilding();
        var members = gate.members();
        if (!gate.steady()) {
            return Optional.of("a scale is in progress");
        }
        if (!rebuilding.isEmpty()) {
            return Optional.of("rebuilding: "
                    + String.join(
                            ", ",
                            rebuilding.stream().map(m -> m.pod(model.name())).toList()));
        }
        var notReady = PodReadiness.unready(model.name(), members, pods);
        if (!notReady.isEmpty()) {
            return Optional.of("not serving: " + String.join(", ", notReady));
        }
        var urls = new LinkedHashMap<Member, String>();
        members.forEach(m -> urls.put(m, gate.adminUrl().apply(m)));
        var authenticated = admin.authenticated(gate.token());
        Map<Member, MemberMovement> movements = authenticated.movements(urls);
        Map<Member, MemberHints> hints = authenticated.hintsOf(urls);
        var why = new ArrayList<String>();
        movements.forEach((m, movement) -> {
            if (movement.state() != MemberMovement.State.IDLE) {
                why.add(m.pod(model.name()) + " data movement " + movement.describe());
            }
        });
        hints.forEach((m, h) -> {
            if (!h.known()) {
                why.add(m.pod(model.name()) + " hints unknown (" + h.problem() + ")");
            } else if (h.pending() > 0) {
                why.add(m.pod(model.name()) + " holds " + h.pending() + " hints not yet delivered");
            }
        });
        return why.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", why));
    }
}
