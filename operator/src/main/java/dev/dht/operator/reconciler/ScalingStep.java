package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.Member;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.NodeConfig;
import dev.dht.operator.nodeadmin.MemberAdmin;
import dev.dht.operator.nodeadmin.NodeCredentials;
import dev.dht.operator.repair.RebuildHold;
import dev.dht.operator.repair.RepairView;
import dev.dht.operator.scaling.FactorHold;
import dev.dht.operator.scaling.MemberMovement;
import dev.dht.operator.scaling.Refusal;
import dev.dht.operator.scaling.ScaleDecision;
import dev.dht.operator.scaling.ScaleObservation;
import dev.dht.operator.scaling.ScalingHold;
import dev.dht.operator.scaling.ScalingPlan;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scaling step (scaling/ScalingPlan) with the movement polls it needs, and what holds it back: a rebuild, a backup
 * or a restore, and the replication factor held while a scale runs.
 */
final class ScalingStep {
    private static final Logger log = LoggerFactory.getLogger(ScalingStep.class);
    private final MemberAdmin admin;

    /**
     * @param decision how many pods the StatefulSets run and which members the topology lists
     * @param refusal  why a change of the spec waits (a rebuild, a backup or restore, the replication factor)
     * @param factor   the replication factor the nodes get now
     */
    record Outcome(ScaleDecision decision, Optional<Refusal> refusal, int factor) {}

    ScalingStep(MemberAdmin admin) {
        this.admin = admin;
    }

    /**
     * @param model    the spec's model (placement decided)
     * @param liveSets the live StatefulSets of the spec's racks, by rack name
     * @param previous the status the cluster has now (its settled topology version, its restore)
     * @param repair   the members' repair: a rebuilding member holds back a scale that has not started
     */
    Outcome decide(
            ClusterModel model,
            Map<String, StatefulSet> liveSets,
            Optional<ConfigMap> liveTopology,
            Collection<Pod> pods,
            Optional<DhtClusterStatus> previous,
            RepairView repair,
            Context<DhtCluster> context,
            Function<Member, String> adminUrl,
            NodeCredentials token) {
        String name = model.name();
        var rebuildHeld = RebuildHold.apply(
                name,
                ScaleObservation.observe(
                        model, liveSets, liveTopology, pods, previous.map(s -> s.settledTopologyVersion)),
                repair.rebuilding());
        var observation = rebuildHeld.observation();
        var planned = ScalingPlan.decide(observation, poll(ScalingPlan.toPoll(observation), adminUrl, token));
        // No member list change while a backup runs or a restore fills the cluster (scaling/ScalingHold).
        var held = ScalingHold.apply(
                planned,
                observation,
                ScalingHold.reason(previous.map(s -> s.restore), context.getSecondaryResources(DhtBackup.class)));
        var scaling = held.decision();
        var factor = FactorHold.decide(
                model.replicationFactor(),
                liveFactor(Secondaries.named(context, ConfigMap.class, Names.configConfigMap(name))),
                !scaling.steady());
        return new Outcome(scaling, held.refusal().or(rebuildHeld::refusal).or(factor::refusal), factor.factor());
    }

    /** The movement reports of these members, asked all at once (bounded by the admin client's timeouts). */
    private Map<Member, MemberMovement> poll(
            List<Member> members, Function<Member, String> adminUrl, NodeCredentials token) {
        if (members.isEmpty()) {
            return Map.of();
        }
        var urls = new LinkedHashMap<Member, String>();
        members.forEach(member -> urls.put(member, adminUrl.apply(member)));
        return admin.authenticated(token).movements(urls);
    }

    /** The replication factor the nodes run with now (from the live node config). */
    static OptionalInt liveFactor(Optional<ConfigMap> config) {
        String value = config.map(ConfigMap::getData)
                .map(d -> d.get(NodeConfig.REPLICATION_FACTOR))
                .orElse(null);
        try {
            return value == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /** Logs a scaling step once, when it starts (progress is in the status). */
    static void logStep(DhtCluster cluster, Optional<DhtClusterStatus> previous, ScaleDecision scaling) {
        var before = previous.map(s -> s.scaling);
        boolean same = before.isPresent()
                && scaling.step().isPresent()
                && before.get().step == scaling.step().get()
                && Integer.valueOf(scaling.topologyMembers().total()).equals(before.get().topologyMembers)
                && Integer.valueOf(scaling.statefulSetReplicas().total()).equals(before.get().statefulSetReplicas);
        if (!same) {
            scaling.step()
                    .ifPresent(step -> log.info(
                            "{}/{} scaling to {}: {} (topology {} members, StatefulSet {})",
                            cluster.getMetadata().getNamespace(),
                            cluster.getMetadata().getName(),
                            cluster.getSpec().replicas,
                            step,
                            scaling.topologyMembers(),
                            scaling.statefulSetReplicas()));
        }
    }
}
