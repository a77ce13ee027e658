package dev.dht.operator.status;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.RestorePhase;
import dev.dht.operator.api.v1alpha1.RestoreStatus;
import dev.dht.operator.api.v1alpha1.ScalingStatus;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Layout;
import dev.dht.operator.model.Member;
import dev.dht.operator.model.Names;
import dev.dht.operator.repair.RepairView;
import dev.dht.operator.rollout.RackRollout;
import dev.dht.operator.scaling.MemberMovement;
import dev.dht.operator.scaling.PodReadiness;
import dev.dht.operator.scaling.Refusal;
import dev.dht.operator.scaling.ScaleDecision;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Computes a cluster's status from what is observed: the StatefulSet's rollout, each member's pod and, while a
 * scale runs, the scaling step and the members' movement reports. Pure: equal inputs give an equal status, so an
 * unchanged cluster causes no status write.
 */
public final class StatusCalculator {
    static final int MAX_MESSAGE = 1024;

    private StatusCalculator() {}

    /** A steady cluster: no scale in progress, nothing refused. */
    public static DhtClusterStatus compute(
            DhtCluster cluster,
            DesiredState desired,
            List<StatefulSet> statefulSets,
            Collection<Pod> pods,
            Instant now) {
        var shape = desired.shape();
        var steady = new ScaleDecision(
                shape.statefulSetReplicas(),
                shape.topologyMembers(),
                shape.topologyMembers(),
                true,
                Optional.empty(),
                List.of(),
                Map.of());
        return compute(
                cluster,
                desired,
                statefulSets,
                pods,
                steady,
                Optional.empty(),
                Optional.empty(),
                RepairView.none(),
                now);
    }

    /**
     * @param scaling the scaling step this reconcile decided (and the reports it used)
     * @param refusal a spec change held back, if any
     * @param restore the progress of the restore the cluster was created with, if any (restore/RestorePlan): until it
     *     is Completed the phase is Restoring
     * @param repair what the members report about repair and rebuilds: a rebuilding member keeps the cluster
     *               Degraded (its pod may be ready, its data is not back yet)
     */
    public static DhtClusterStatus compute(
            DhtCluster cluster,
            DesiredState desired,
            List<StatefulSet> statefulSets,
            Collection<Pod> pods,
            ScaleDecision scaling,
            Optional<Refusal> refusal,
            Optional<RestoreStatus> restore,
            RepairView repair,
            Instant now) {
        var model = desired.model();
        var previous = cluster.getStatus() != null ? cluster.getStatus() : new DhtClusterStatus();
        int wanted = model.replicas();
        Map<String, Pod> podsByName = pods.stream()
                .collect(Collectors.toMap(p -> p.getMetadata().getName(), Function.identity(), (a, b) -> a));

        var members = members(model, podsByName, previous, scaling);
        var rebuilding = new ArrayList<String>();
        for (var e : repair.rebuilding().entrySet()) {
            String pod = e.getKey().pod(model.name());
            members.stream().filter(m -> pod.equals(m.name)).findFirst().ifPresent(m -> {
                m.state = MemberState.Rebuilding;
                m.rebuild = e.getValue().describe();
                rebuilding.add(m.name + " (" + m.rebuild + ")");
            });
        }
        var target = scaling.target();
        var wantedMembers =
                members.stream().filter(m -> within(model.name(), m, target)).toList();
        int ready = (int) wantedMembers.stream().filter(m -> m.ready).count();
        List<String> notReady =
                wantedMembers.stream().filter(m -> !m.ready).map(m -> m.name).toList();

        var rollout = RackRollout.summary(model.name(), statefulSets, target);
        int existing = rollout.existing();
        int updated = rollout.updated();
        boolean rolledOut = rollout.complete();
        boolean joining = members.stream().anyMatch(m -> m.state == MemberState.Joining);
        Optional<StatefulSet> statefulSet = statefulSets.stream().findFirst();

        Phase phase;
        String message;
        String readySummary = ready + "/" + wanted + " members ready";
        boolean restoring = restore.isPresent() && restore.get().phase != RestorePhase.Completed;
        if (restoring) {
            phase = Phase.Restoring;
            message = "restoring backup " + restore.get().backupId + " (" + restore.get().phase + "), no client served"
                    + " until it is done: " + (restore.get().message == null ? readySummary : restore.get().message);
        } else if (scaling.steady() && rolledOut && ready == wanted && rebuilding.isEmpty()) {
            phase = Phase.Ready;
            message = readySummary;
        } else if (statefulSet.isEmpty() || previous.phase == null || previous.phase == Phase.Creating) {
            phase = Phase.Creating;
            message = "creating " + wanted + " members: " + readySummary;
        } else if (!rebuilding.isEmpty()) {
            // Pod readiness is no proof that the data is back: Degraded until every rebuild is done.
            phase = Phase.Degraded;
            message = readySummary + "; rebuilding: " + String.join(", ", rebuilding)
                    + refusal.map(r -> "; " + r.message()).orElse("");
        } else if (!scaling.steady() || !rolledOut && (existing != wanted || joining)) {
            phase = Phase.Scaling;
            message = "scaling to " + wanted + " members: "
                    + scalingMessage(model.name(), scaling, members, readySummary);
        } else if (!rolledOut) {
            phase = Phase.Updating;
            message = "rolling update, one member at a time" + (model.hasRacks() ? ", rack by rack" : "") + ": "
                    + updated + "/" + wanted + " members on the new pod template, " + readySummary
                    + "; each member after the one before serves again with its hints delivered (condition Rolled)";
        } else {
            phase = Phase.Degraded;
            message = readySummary + "; not ready: " + String.join(", ", notReady);
        }

        var status = new DhtClusterStatus();
        status.observedGeneration = cluster.getMetadata().getGeneration();
        status.phase = phase;
        status.replicas = existing;
        status.readyReplicas = ready;
        status.replicationFactor = model.effectiveReplicationFactor();
        status.selector = Labels.selectorString(model.name());
        status.topologyVersion = desired.topologyVersion();
        status.settledTopologyVersion = scaling.settled() ? desired.topologyVersion() : previous.settledTopologyVersion;
        status.scaling = scaling.step()
                .map(step -> scalingStatus(model.name(), wanted, scaling))
                .orElse(null);
        status.restore = restore.orElse(null);
        status.repair = repair.status() != null ? repair.status() : previous.repair;
        status.members = members;
        if (model.hasRacks()) {
            status.racks = RackStatuses.of(model, scaling, members);
            status.racksReady = RackStatuses.summary(status.racks);
        }
        status.conditions = new ArrayList<>(conditions(
                previous.conditions,
                phase,
                truncate(message),
                refusal,
                status.observedGeneration,
                now,
                !rebuilding.isEmpty()));
        status.conditions.add(Conditions.condition(
                previous.conditions,
                Conditions.REPAIR_OVERDUE,
                repair.overdue(),
                repair.reason(),
                truncate(repair.message()),
                status.observedGeneration,
                now));
        status.conditions.add(RackStatuses.failureDomains(
                previous.conditions, model, scaling.topologyMembers(), status.observedGeneration, now));
        return status;
    }

    /**
     * Each rack's ordinals 0..max(its target, its StatefulSet's replicas)-1, rack by rack: in the topology (Up, or
     * Joining until the move that added them is done), about to enter it (Joining), or leaving it (Draining).
     */
    static List<MemberStatus> members(
            ClusterModel model, Map<String, Pod> podsByName, DhtClusterStatus previous, ScaleDecision scaling) {
        var members = new ArrayList<MemberStatus>();
        var listed = scaling.topologyMembers();
        var target = scaling.target();
        for (String rack : model.rackNames()) {
            int count = Math.max(target.get(rack), scaling.statefulSetReplicas().get(rack));
            for (int i = 0; i < count; i++) {
                var member = new Member(rack, i);
                String name = member.pod(model.name());
                boolean ready = isReady(podsByName.get(name));
                boolean wasUp = previous.members != null
                        && previous.members.stream().anyMatch(m -> name.equals(m.name) && m.state == MemberState.Up);
                MemberState state;
                if (scaling.leaving().contains(member)) {
                    state = MemberState.Draining;
                } else if (i >= listed.get(rack)) {
                    state = MemberState.Joining;
                } else {
                    state = wasUp || ready && scaling.settled() ? MemberState.Up : MemberState.Joining;
                }
                if (i >= target.get(rack) && i >= listed.get(rack) && state != MemberState.Draining) {
                    continue; // beyond the target, not in the topology, not leaving it: no member
                }
                var status = new MemberStatus(name, member.url(model), state, ready);
                status.rack = rack.isEmpty() ? null : rack;
                MemberMovement report = scaling.reports().get(member);
                if (report != null && !scaling.steady()) {
                    status.movement = report.state().jsonName();
                    status.keysLeft = report.state() == MemberMovement.State.MOVING ? report.keysLeft() : null;
                }
                members.add(status);
            }
        }
        return members;
    }

    /** A member its rack is to keep (its ordinal below the rack's target). */
    private static boolean within(String cluster, MemberStatus m, Layout target) {
        return Names.member(cluster, m.name)
                .map(member -> member.ordinal() < target.get(member.rack()))
                .orElse(false);
    }

    static ScalingStatus scalingStatus(String cluster, int wanted, ScaleDecision scaling) {
        var out = new ScalingStatus();
        out.targetReplicas = wanted;
        out.topologyMembers = scaling.topologyMembers().total();
        out.statefulSetReplicas = scaling.statefulSetReplicas().total();
        out.step = scaling.step().orElseThrow();
        out.leaving = scaling.leaving().stream().map(m -> m.pod(cluster)).toList();
        if (!scaling.reports().isEmpty()) {
            var reports = scaling.reports().values();
            out.membersPolled = reports.size();
            out.membersIdle = (int) reports.stream()
                    .filter(r -> r.state() == MemberMovement.State.IDLE)
                    .count();
            out.keysLeft = reports.stream().mapToLong(MemberMovement::keysLeft).sum();
            out.bytesLeft =
                    reports.stream().mapToLong(MemberMovement::bytesLeft).sum();
        }
        return out;
    }

    static String scalingMessage(
            String cluster, ScaleDecision scaling, List<MemberStatus> members, String readySummary) {
        var step = scaling.step();
        if (step.isEmpty()) {
            return readySummary;
        }
        String leaving = scaling.leaving().stream().map(m -> m.pod(cluster)).collect(Collectors.joining(", "));
        String starting = members.stream()
                .filter(m -> m.state == MemberState.Joining && !m.ready)
                .map(m -> m.name)
                .collect(Collectors.joining(", "));
        return switch (step.get()) {
            case StartingMembers ->
                readySummary
                        + (starting.isEmpty()
                                ? "; waiting for the StatefulSet's pods"
                                : "; starting " + starting + ", which join the topology once ready");
            case WaitingForRollout -> readySummary + "; the topology changes once the rolling update is done";
            case RemovingMember ->
                "removing " + leaving + " from the StatefulSet: out of the topology, nothing left to" + " hand over";
            case MovingData ->
                (leaving.isEmpty() ? "" : leaving + " leaving; ") + "moving data on a topology of "
                        + scaling.topologyMembers().total() + " members: " + movementSummary(cluster, scaling);
            case Held ->
                "held at " + scaling.topologyMembers().total() + " members while a backup or restore runs (condition"
                        + " Refused says which); " + readySummary;
        };
    }

    /** "3/5 idle, 1200 keys and 4096 bytes left; kv-3 moving (1200 keys left), kv-4 unknown (timed out)". */
    static String movementSummary(String cluster, ScaleDecision scaling) {
        var reports = scaling.reports();
        if (reports.isEmpty()) {
            return "asking the members for their progress";
        }
        long idle = reports.values().stream()
                .filter(r -> r.state() == MemberMovement.State.IDLE)
                .count();
        long keys =
                reports.values().stream().mapToLong(MemberMovement::keysLeft).sum();
        long bytes =
                reports.values().stream().mapToLong(MemberMovement::bytesLeft).sum();
        String busy = reports.entrySet().stream()
                .filter(e -> e.getValue().state() != MemberMovement.State.IDLE)
                .sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey().pod(cluster) + " " + e.getValue().describe())
                .collect(Collectors.joining(", "));
        return idle + "/" + reports.size() + " idle, " + keys + " keys and " + bytes + " bytes left"
                + (busy.isEmpty() ? "; every member idle, some not yet on the new topology" : "; " + busy);
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
        status.selector = previous.selector != null
                ? previous.selector
                : Labels.selectorString(cluster.getMetadata().getName());
        status.topologyVersion = previous.topologyVersion;
        status.settledTopologyVersion = previous.settledTopologyVersion;
        status.scaling = previous.scaling;
        status.restore = previous.restore;
        status.members = previous.members != null ? previous.members : new ArrayList<>();
        var refusal = Conditions.find(previous.conditions, Conditions.REFUSED)
                .filter(c -> "True".equals(c.getStatus()))
                .map(c -> new Refusal(c.getReason(), c.getMessage()));
        status.repair = previous.repair;
        status.racks = previous.racks;
        status.racksReady = previous.racksReady;
        status.conditions = new ArrayList<>(conditions(
                previous.conditions, Phase.Failed, truncate(failure), refusal, status.observedGeneration, now, false));
        Conditions.find(previous.conditions, Conditions.REPAIR_OVERDUE).ifPresent(status.conditions::add);
        Conditions.find(previous.conditions, Conditions.FAILURE_DOMAINS).ifPresent(status.conditions::add);
        return status;
    }

    static List<Condition> conditions(
            List<Condition> previous,
            Phase phase,
            String message,
            Optional<Refusal> refusal,
            Long generation,
            Instant now,
            boolean rebuilding) {
        boolean progressing = phase == Phase.Creating
                || phase == Phase.Scaling
                || phase == Phase.Updating
                || phase == Phase.Restoring;
        String reason = switch (phase) {
            case Ready -> "AllMembersReady";
            case Creating -> "Creating";
            case Scaling -> "Scaling";
            case Updating -> "RollingUpdate";
            case Degraded -> rebuilding ? "MemberRebuilding" : "MembersNotReady";
            case Failed -> "ReconcileFailed";
            case Restoring -> "Restoring";
        };
        return List.of(
                Conditions.condition(
                        previous, Conditions.READY, phase == Phase.Ready, reason, message, generation, now),
                Conditions.condition(
                        previous,
                        Conditions.PROGRESSING,
                        progressing,
                        progressing || phase == Phase.Failed ? reason : "RolloutComplete",
                        message,
                        generation,
                        now),
                Conditions.condition(
                        previous,
                        Conditions.DEGRADED,
                        phase == Phase.Degraded || phase == Phase.Failed,
                        phase == Phase.Degraded || phase == Phase.Failed ? reason : "AsExpected",
                        message,
                        generation,
                        now),
                Conditions.condition(
                        previous,
                        Conditions.REFUSED,
                        refusal.isPresent(),
                        refusal.map(Refusal::reason).orElse("AsRequested"),
                        refusal.map(Refusal::message).orElse("the spec is applied as written"),
                        generation,
                        now));
    }

    /** Ready as the kubelet reports it, and not on its way out. */
    public static boolean isReady(Pod pod) {
        return PodReadiness.isReady(pod);
    }

    private static int zeroIfNull(Integer value) {
        return value == null ? 0 : value;
    }

    private static String truncate(String message) {
        String m = message == null || message.isBlank() ? "reconcile failed" : message;
        return m.length() <= MAX_MESSAGE ? m : m.substring(0, MAX_MESSAGE - 3) + "...";
    }
}
