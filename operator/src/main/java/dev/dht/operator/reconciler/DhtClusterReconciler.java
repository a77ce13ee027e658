package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtUser;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.ClusterShape;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.InvalidSpecException;
import dev.dht.operator.model.Member;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.NodeSecurity;
import dev.dht.operator.model.Placement;
import dev.dht.operator.model.Platform;
import dev.dht.operator.model.Topology;
import dev.dht.operator.nodeadmin.HttpMemberAdmin;
import dev.dht.operator.nodeadmin.JdkMemberTlsProbe;
import dev.dht.operator.nodeadmin.MemberAddresses;
import dev.dht.operator.nodeadmin.MemberAdmin;
import dev.dht.operator.nodeadmin.MemberPlane;
import dev.dht.operator.nodeadmin.MemberTlsProbe;
import dev.dht.operator.nodeadmin.NodeCredentials;
import dev.dht.operator.nodeadmin.OperatorAccess;
import dev.dht.operator.repair.RepairView;
import dev.dht.operator.scaling.PodReadiness;
import dev.dht.operator.scaling.RackRemoval;
import dev.dht.operator.security.SecurityNames;
import dev.dht.operator.status.StatusCalculator;
import dev.dht.operator.upgrade.NodeVersion;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a DhtCluster: build the desired objects from the spec (pure, {@code model/}), write
 * the ones that differ from the live objects (in dependency order), then compute the status from
 * what is observed ({@code status/}) and patch it only if it changed, with an Event when the phase
 * changes. A reconcile of an unchanged cluster therefore writes nothing.
 *
 * <p>Scaling is a sequence of such reconciles ({@code scaling/ScalingPlan}): each one derives the next step from
 * what it observes (spec, StatefulSet, topology ConfigMap, pods, and while a data move runs the members' movement
 * endpoints) and changes at most one of the StatefulSet's replicas and the topology; it reschedules itself while a
 * scale is in progress.
 *
 * <p>Owned objects carry an owner reference to the DhtCluster, so Kubernetes' garbage collector
 * deletes them with it; there is no finalizer (deleting a cluster never waits for the operator).
 *
 * <p>This class runs the steps in order; the larger ones are classes of this package: {@link ClusterInformers} (what
 * is watched), {@link RepairPolls}, {@link ScalingStep}, {@link RollStep}, {@link SecurityStep}, {@link RestoreDriver},
 * {@link FeatureLevelStep} and {@link StatusStep} (the conditions it adds, the status write and its Events).
 */
// Not generation-aware: an annotation (dht.dev/renew-certificate, dht.dev/replace-ca) must start a reconcile too; a
// reconcile of an unchanged cluster writes nothing, so the extra ones cost only reads.
@ControllerConfiguration(
        name = DhtClusterReconciler.NAME,
        fieldManager = ResourceApplier.FIELD_MANAGER,
        generationAwareEventProcessing = false)
public class DhtClusterReconciler implements Reconciler<DhtCluster> {
    private static final Logger log = LoggerFactory.getLogger(DhtClusterReconciler.class);
    public static final String NAME = "dhtcluster";
    /** How soon a reconcile runs again while a scale is in progress (the members' progress is polled then). */
    public static final Duration SCALING_POLL_INTERVAL = Duration.ofSeconds(2);

    private final Platform platform;
    private final Clock clock;
    private final WriteMetrics metrics;
    private final MemberAddresses memberAddresses;
    private final Duration pollInterval;
    private final MemberTlsProbe tlsProbe;
    private final MemberPlane memberPlane;
    private final MemberPlane clientPlane;
    private final SecureRandom random = new SecureRandom();
    private final ClusterInformers informers = new ClusterInformers();
    private final RepairPolls repairPolls;
    private final Replacements replacements;
    private final ScalingStep scalings;
    private final RollStep rolls;
    private final RestoreDriver restores;
    private final StorePolls storePolls;
    private final StatusStep statuses;
    private final FeatureLevelStep featureLevels;

    public DhtClusterReconciler(Platform platform, Clock clock, WriteMetrics metrics) {
        this(
                platform,
                clock,
                metrics,
                new HttpMemberAdmin(),
                MemberAddresses.direct(),
                SCALING_POLL_INTERVAL,
                new JdkMemberTlsProbe(),
                null,
                null);
    }

    /**
     * @param memberAddresses where a member's admin API is reached (its own URL unless overridden)
     * @param pollInterval    how soon to reconcile again while a scale is in progress
     * @param tlsProbe how the operator looks at a member's member port during a CA replacement
     * @param memberPlane where that port is, by pod (null: the member URL, or its override in memberAddresses, at the
     *     client port + the member port offset)
     * @param clientPlane where a member's client port is (null: the member URL, or its override), which the operator
     *     looks at during a client CA replacement
     */
    public DhtClusterReconciler(
            Platform platform,
            Clock clock,
            WriteMetrics metrics,
            MemberAdmin memberAdmin,
            MemberAddresses memberAddresses,
            Duration pollInterval,
            MemberTlsProbe tlsProbe,
            MemberPlane memberPlane,
            MemberPlane clientPlane) {
        this.tlsProbe = tlsProbe;
        this.memberPlane =
                memberPlane != null ? memberPlane : memberPlaneOf(memberAddresses, SecurityNames.MEMBER_PORT_OFFSET);
        this.clientPlane = clientPlane != null ? clientPlane : memberPlaneOf(memberAddresses, 0);
        this.platform = platform;
        this.clock = clock;
        this.metrics = metrics;
        this.memberAddresses = memberAddresses;
        this.pollInterval = pollInterval;
        this.restores = new RestoreDriver(memberAdmin, memberAddresses);
        this.repairPolls = new RepairPolls(memberAdmin, pollInterval);
        this.replacements = new Replacements(metrics);
        this.scalings = new ScalingStep(memberAdmin);
        this.rolls = new RollStep(memberAdmin);
        this.storePolls = new StorePolls(memberAdmin, repairPolls.steadyInterval());
        this.statuses = new StatusStep(metrics);
        this.featureLevels =
                new FeatureLevelStep(new ReleasePolls(memberAdmin, repairPolls.steadyInterval()), memberAddresses);
    }

    @Override
    public List<EventSource<?, DhtCluster>> prepareEventSources(EventSourceContext<DhtCluster> context) {
        return informers.prepare(context);
    }

    @Override
    public UpdateControl<DhtCluster> reconcile(DhtCluster cluster, Context<DhtCluster> context) {
        // The node image is the cluster's choice (spec.version/spec.image, else what its pods run): an operator upgrade
        // alone changes no pod template (upgrade/NodeVersion). Whether the running members' client port serves TLS: the
        // other observed fact the model reads (any rack's StatefulSet tells, they roll to the same template).
        var liveSets = liveStatefulSets(context, ClusterModel.from(cluster, platform));
        var spec = ClusterModel.from(
                cluster,
                NodeVersion.platformFor(cluster.getSpec(), platform, liveSets.values()),
                liveSets.values().stream().findFirst().map(NodeSecurity::servesClientTls));
        String name = spec.name();
        var previous = Optional.ofNullable(cluster.getStatus());
        var liveTopology = Secondaries.named(context, ConfigMap.class, Names.topologyConfigMap(name));
        RackRemoval.check(spec, liveTopology, context.getSecondaryResources(StatefulSet.class));
        // A cluster made before one member per Kubernetes node was the default keeps its placement (model/Placement).
        var specModel = spec.withPlacement(Placement.decide(
                spec,
                spec.hasRacks()
                        ? Optional.empty()
                        : Optional.ofNullable(liveSets.get(""))
                                .map(s -> Optional.ofNullable(s.getMetadata().getAnnotations())
                                        .orElse(Map.of()))));
        var pods = context.getSecondaryResources(Pod.class);
        var now = clock.instant();
        replacements.replace(cluster, pods, context.getClient());
        // Repair and rebuilds as the members report them (repair/): a rebuilding member keeps the cluster Degraded
        // and holds back a scale that has not started.
        var token = credentials(context, specModel);
        Function<Member, String> adminUrl = member -> adminUrl(specModel, member);
        var repair = RepairView.of(
                repairPolls.reports(cluster, pods, adminUrl, token, now),
                specModel.repair(),
                createdAt(cluster, now),
                now);

        // The scaling step: what to run, what to list in the topology (scaling/ScalingPlan), and what holds it back.
        var scaled =
                scalings.decide(specModel, liveSets, liveTopology, pods, previous, repair, context, adminUrl, token);
        var scaling = scaled.decision();
        var model = specModel.withReplicationFactor(scaled.factor());
        long topologyVersion = Topology.version(
                model.topologyLines(scaling.topologyMembers()), liveTopology, previous.map(s -> s.topologyVersion));
        // A new pod template rolls one member at a time, rack by rack, each once the cluster is settled
        // (rollout/MemberRoll): the partitions say how far.
        var shape = new ClusterShape(scaling.statefulSetReplicas(), scaling.topologyMembers(), topologyVersion);
        var roll = rolls.plan(
                cluster,
                model,
                shape,
                liveSets,
                pods,
                new RollStep.Gate(
                        scaling.steady(),
                        repair.rebuilding().keySet(),
                        scaling.topologyMembers().members(),
                        adminUrl,
                        token));
        var desired = DesiredState.of(cluster, model, shape.withPartitions(roll.partitions()));

        var applier = new ResourceApplier(context.getClient(), informers.caches(), metrics);
        // Certificates, tokens and the NetworkPolicy before the pods that mount or depend on them.
        var security = new SecurityStep(
                        context.getClient(),
                        applier,
                        n -> Secondaries.named(context, Secret.class, n),
                        n -> Secondaries.named(context, ConfigMap.class, n),
                        informers::secret,
                        Secondaries.named(context, NetworkPolicy.class, SecurityNames.networkPolicy(name)),
                        random,
                        tlsProbe,
                        memberPlane,
                        clientPlane)
                .run(cluster, model, platform, pods, context.getSecondaryResources(DhtUser.class), clock.instant());
        var statefulSets = new java.util.ArrayList<StatefulSet>();
        for (HasMetadata object : desired.inApplyOrder()) { // the order DesiredStateTest checks: pods come last
            if (apply(applier, context, object) instanceof StatefulSet applied) {
                statefulSets.add(applied);
            }
        }

        // The restore runs on the members the topology lists, not spec.replicas: a scale asked for meanwhile is held
        // until the restore completes, so waiting for the spec's count (pods that cannot exist yet) would deadlock.
        var members = scaling.topologyMembers().members();
        boolean membersReady = !statefulSets.isEmpty()
                && scaling.membersFixed()
                && PodReadiness.unready(name, members, pods).isEmpty();
        var restore = restores.drive(cluster, model, members, context.getClient(), membersReady, token, now);
        var status = StatusCalculator.compute(
                cluster, desired, statefulSets, pods, scaling, scaled.refusal(), restore, repair, now);
        // What the members say of the object store: a wrong credential shows before any backup runs.
        var store = specModel.backup().storage().map(storage -> storePolls.view(cluster, pods, adminUrl, token, now));
        statuses.addConditions(status, previous, security, roll, store, now);
        // Each member's release and the cluster feature level, raised once every member runs a release that has it.
        boolean raising = featureLevels.run(
                cluster, pods, adminUrl, status, previous.map(s -> s.conditions).orElse(List.of()), token, now);
        statuses.write(cluster, status, now, context);
        metrics.reconciled("success");
        ScalingStep.logStep(cluster, previous, scaling);
        // The status is written already. While a scale or a rebuild runs, look again soon: the members' progress
        // produces no event; otherwise now and then, for the repair status. Certificates are looked at again when due
        // (or soon, while a CA replacement waits for the members).
        UpdateControl<DhtCluster> control = UpdateControl.noUpdate();
        var next = new java.util.ArrayList<Duration>();
        security.recheckIn().ifPresent(next::add);
        next.add(
                scaling.steady()
                                && repair.rebuilding().isEmpty()
                                && !RestoreDriver.inProgress(restore)
                                && !security.waiting()
                                && !raising
                                && !roll.rolling()
                        ? repairPolls.steadyInterval()
                        : pollInterval);
        return control.rescheduleAfter(next.stream().min(Duration::compareTo).orElseThrow());
    }

    /** Where the operator reaches a member's admin API. */
    private String adminUrl(ClusterModel model, Member member) {
        return memberAddresses.adminUrl(model.namespace(), member.pod(model.name()), member.url(model));
    }

    /** The live StatefulSets of the spec's racks, by rack name ("" for the implicit rack). */
    private static Map<String, StatefulSet> liveStatefulSets(Context<DhtCluster> context, ClusterModel model) {
        var out = new LinkedHashMap<String, StatefulSet>();
        for (String rack : model.rackNames()) {
            Secondaries.named(context, StatefulSet.class, Names.statefulSet(model.name(), rack))
                    .ifPresent(s -> out.put(rack, s));
        }
        return out;
    }

    private static Instant createdAt(DhtCluster cluster, Instant now) {
        String t = cluster.getMetadata().getCreationTimestamp();
        try {
            return t == null ? now : Instant.parse(t);
        } catch (java.time.format.DateTimeParseException e) {
            return now;
        }
    }

    /**
     * By default a member's member port is its DNS name (or its override) at the client port + the offset, and its
     * client port that name at the client port (offset 0).
     */
    MemberPlane memberPlaneOf(MemberAddresses addresses, int offset) {
        return (namespace, cluster, pod) -> {
            var url = java.net.URI.create(addresses.adminUrl(
                    namespace, pod, Names.memberUrl(pod, cluster, namespace, platform.clusterDomain())));
            int port = (url.getPort() > 0 ? url.getPort() : Names.NODE_PORT) + offset;
            return Map.entry(url.getHost(), port);
        };
    }

    /**
     * What the operator presents on the cluster's client port: its admin token when the nodes require tokens, and with
     * client TLS the CA bundle and its client certificate (each from its object, once written).
     */
    private static NodeCredentials credentials(Context<DhtCluster> context, ClusterModel model) {
        var security = model.security();
        var tokens = security.auth().enabled()
                ? Secondaries.named(context, Secret.class, security.auth().tokensSecret())
                : Optional.<Secret>empty();
        var client = security.clientTls();
        return OperatorAccess.of(
                client.enabled(),
                tokens,
                Secondaries.named(context, ConfigMap.class, client.caConfigMap()),
                Secondaries.named(context, Secret.class, client.operatorSecret()));
    }

    @Override
    public ErrorStatusUpdateControl<DhtCluster> updateErrorStatus(
            DhtCluster cluster, Context<DhtCluster> context, Exception e) {
        metrics.reconciled("failure");
        var now = clock.instant();
        var status = StatusCalculator.failed(cluster, describe(e), now);
        try {
            statuses.write(cluster, status, now, context);
        } catch (KubernetesClientException writeFailed) {
            log.warn(
                    "could not write the Failed status of {}/{}: {}",
                    cluster.getMetadata().getNamespace(),
                    cluster.getMetadata().getName(),
                    writeFailed.getMessage());
        }
        var control = ErrorStatusUpdateControl.<DhtCluster>noStatusUpdate();
        // A spec the operator cannot use will not get better by retrying; a spec change triggers a new reconcile.
        return e instanceof InvalidSpecException ? control.withNoRetry() : control;
    }

    @SuppressWarnings("unchecked")
    private static <R extends HasMetadata> R apply(ResourceApplier applier, Context<DhtCluster> context, R desired) {
        var kind = (Class<R>) desired.getClass();
        return applier.apply(
                desired, Secondaries.named(context, kind, desired.getMetadata().getName()));
    }

    static String describe(Exception e) {
        return describe(e, "write");
    }

    /** What went wrong, for a status or a log: the API server's own message when it refused {@code what}. */
    public static String describe(Exception e, String what) {
        if (e instanceof KubernetesClientException k
                && k.getStatus() != null
                && k.getStatus().getMessage() != null) {
            return "the API server refused a " + what + " (" + k.getCode() + "): "
                    + k.getStatus().getMessage();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
