package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.DhtOperator;
import dev.dht.operator.OperatorSettings;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.JvmSpec;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.StorageSpec;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Platform;
import dev.dht.operator.model.Topology;
import dev.dht.operator.reconciler.WriteMetrics;
import dev.dht.operator.status.Conditions;
import dev.dht.operator.testing.FakeGarbageCollector;
import dev.dht.operator.testing.FakeMembers;
import dev.dht.operator.testing.FakeStatefulSetController;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.OperatorUnderTest;
import dev.dht.operator.testing.Processes;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.junit.LocallyRunOperatorExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The operator (JOSDK LocallyRunOperatorExtension) against a real kube-apiserver + etcd, with fakes
 * for the StatefulSet controller/kubelet and the garbage collector. Each test gets its own
 * namespace and operator.
 */
@ExtendWith(RequiresKubeApiServer.class)
class DhtClusterIT {
    static final Platform PLATFORM = new Platform("dht-node:it", "cluster.local");
    static final Duration FUNCTIONAL_BOUND = Duration.ofSeconds(60);
    final WriteMetrics writes = WriteMetrics.inMemory();
    // A client per test: the extension closes it when the test ends.
    final KubernetesClient client = KubeApiServer.client();

    @RegisterExtension
    final LocallyRunOperatorExtension operator = OperatorUnderTest.builder(client)
            .withReconciler(OperatorUnderTest.clusterReconciler(PLATFORM, writes, this::adminUrl))
            .build();
    // Fake members of the clusters a test rolls: a roll asks every member for its hints and data movement first.
    final List<FakeMembers> members = new java.util.concurrent.CopyOnWriteArrayList<>();

    FakeStatefulSetController statefulSets;
    FakeGarbageCollector garbageCollector;
    String ns;

    @BeforeEach
    void startFakes() {
        ns = operator.getNamespace();
        statefulSets = new FakeStatefulSetController(client, ns).start();
        garbageCollector = new FakeGarbageCollector(client, ns);
    }

    @AfterEach
    void stopFakes() {
        members.forEach(FakeMembers::close);
        statefulSets.close();
    }

    /** Fake members for the cluster {@code name}: racks' members when racks are given. */
    FakeMembers fakeMembers(String name, int capacity, String... racks) {
        var fake = racks.length == 0
                ? new FakeMembers(client, ns, name, PLATFORM.clusterDomain(), capacity)
                : FakeMembers.ofRacks(client, ns, name, PLATFORM.clusterDomain(), List.of(racks), capacity);
        members.add(fake);
        return fake;
    }

    String adminUrl(String namespace, String pod, String memberUrl) {
        return members.stream()
                .map(m -> m.adminUrl(namespace, pod, null))
                .filter(java.util.Objects::nonNull)
                .findFirst()
                .orElse(memberUrl);
    }

    @Test
    void createsEveryResourceAsSpecifiedAndBecomesReady() {
        statefulSets.kubeletReportsReady(false);
        operator.create(cluster("alpha", 3));

        awaitStatus("alpha", s -> {
            assertThat(s.phase).isEqualTo(Phase.Creating);
            assertThat(Conditions.isTrue(s.conditions, Conditions.PROGRESSING)).isTrue();
            assertThat(s.members).extracting(m -> m.state).containsOnly(MemberState.Joining);
        });
        var owner = operator.get(DhtCluster.class, "alpha");
        var sts = operator.get(StatefulSet.class, "alpha");
        assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
        assertThat(sts.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
        assertThat(sts.getSpec().getServiceName()).isEqualTo("alpha-headless");
        assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted())
                .isEqualTo("Retain");
        var pod = sts.getSpec().getTemplate().getSpec();
        assertThat(pod.getContainers().get(0).getImage()).isEqualTo("dht-node:it");
        assertThat(pod.getContainers().get(0).getImagePullPolicy()).isEqualTo("IfNotPresent");
        assertThat(pod.getContainers().get(0).getReadinessProbe().getHttpGet().getPath())
                .isEqualTo("/v0/status");
        assertThat(pod.getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem())
                .isTrue();
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();

        var headless = operator.get(Service.class, "alpha-headless");
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
        var clientService = operator.get(Service.class, "alpha");
        assertThat(clientService.getSpec().getType()).isEqualTo("ClusterIP");
        assertThat(clientService.getSpec().getClusterIP()).isNotBlank().isNotEqualTo("None");
        var topology = operator.get(ConfigMap.class, "alpha-topology");
        assertThat(Topology.members(topology))
                .containsExactly(
                        "http://alpha-0.alpha-headless." + ns + ".svc.cluster.local:8080",
                        "http://alpha-1.alpha-headless." + ns + ".svc.cluster.local:8080",
                        "http://alpha-2.alpha-headless." + ns + ".svc.cluster.local:8080");
        assertThat(operator.get(ConfigMap.class, "alpha-config").getData())
                .containsEntry("DHT_REPLICATION_FACTOR", "3");
        assertThat(operator.get(PodDisruptionBudget.class, "alpha")
                        .getSpec()
                        .getMaxUnavailable()
                        .getIntVal())
                .isEqualTo(1);
        assertThat(operator.get(ServiceAccount.class, "alpha-node").getAutomountServiceAccountToken())
                .isFalse();
        for (HasMetadata owned : owned("alpha")) {
            assertThat(owned.getMetadata().getOwnerReferences()).singleElement().satisfies(ref -> {
                assertThat(ref.getUid()).isEqualTo(owner.getMetadata().getUid());
                assertThat(ref.getController()).isTrue();
            });
            assertThat(owned.getMetadata().getLabels()).containsEntry(Labels.MANAGED_BY, Labels.OPERATOR);
        }

        statefulSets.kubeletReportsReady(true);
        awaitStatus("alpha", s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.observedGeneration).isEqualTo(1L);
            assertThat(s.readyReplicas).isEqualTo(3);
            assertThat(s.replicationFactor).isEqualTo(3);
            assertThat(s.topologyVersion).isEqualTo(1L);
            assertThat(s.members).extracting(m -> m.state).containsOnly(MemberState.Up);
            assertThat(Conditions.isTrue(s.conditions, Conditions.READY)).isTrue();
            assertThat(Conditions.isTrue(s.conditions, Conditions.PROGRESSING)).isFalse();
            assertThat(Conditions.isTrue(s.conditions, Conditions.DEGRADED)).isFalse();
        });

        await("events")
                .atMost(FUNCTIONAL_BOUND)
                .untilAsserted(() -> assertThat(
                                client.v1().events().inNamespace(ns).list().getItems())
                        .filteredOn(
                                e -> "DhtCluster".equals(e.getInvolvedObject().getKind())
                                        && "alpha"
                                                .equals(e.getInvolvedObject()
                                                        .getName())) // the Service "alpha" has events of its own
                        .extracting(e -> e.getType() + " " + e.getReason() + " " + e.getMessage())
                        .containsExactlyInAnyOrder(
                                "Normal Creating Creating: creating 3 members: 0/3 members ready",
                                "Normal AllMembersReady Creating -> Ready: 3/3 members ready"));
        // (pods are held not ready until now, so the first status is 0/3 whatever the timing)

        var table = Processes.kubectl("get", "dht", "-n", ns).orFail("kubectl get dht");
        assertThat(table.stdout().lines().findFirst().orElseThrow().split("\\s+"))
                .containsExactly("NAME", "READY", "REPLICAS", "RF", "RACKS", "PHASE", "AGE");
        assertThat(table.stdout().lines().skip(1).findFirst().orElseThrow())
                .as("no racks: nothing in RACKS")
                .matches("alpha\\s+3\\s+3\\s+3\\s+Ready\\s+\\S+");
    }

    @Test
    void aConfigChangeRollsThePodsThroughANewTemplateHash() {
        fakeMembers("gamma", 3);
        operator.create(overFakeMembers(cluster("gamma", 3)));
        awaitPhase("gamma", Phase.Ready);
        String hashBefore = configHash("gamma");

        var edited = operator.get(DhtCluster.class, "gamma");
        edited.getSpec().jvm = new JvmSpec();
        edited.getSpec().jvm.heap = "512Mi";
        statefulSets.kubeletReportsReady(false);
        operator.replace(edited);

        awaitStatus("gamma", s -> {
            assertThat(s.observedGeneration).isEqualTo(2L);
            assertThat(s.phase).isEqualTo(Phase.Updating);
            assertThat(Conditions.find(s.conditions, Conditions.PROGRESSING)
                            .orElseThrow()
                            .getReason())
                    .isEqualTo("RollingUpdate");
        });
        assertThat(configHash("gamma")).isNotEqualTo(hashBefore);
        assertThat(operator.get(ConfigMap.class, "gamma-config").getData().get("JAVA_TOOL_OPTIONS"))
                .contains("-Xms512m -Xmx512m");
        assertThat(operator.get(StatefulSet.class, "gamma")
                        .getSpec()
                        .getUpdateStrategy()
                        .getType())
                .isEqualTo("RollingUpdate");

        statefulSets.kubeletReportsReady(true);
        awaitPhase("gamma", Phase.Ready);
        assertThat(statefulSets.podsReplacedByRollingUpdate()).isEqualTo(3);
        assertThat(client.pods()
                        .inNamespace(ns)
                        .withLabels(Labels.selector("gamma"))
                        .list()
                        .getItems())
                .allSatisfy(p -> assertThat(p.getMetadata().getAnnotations())
                        .containsEntry(Labels.CONFIG_HASH, configHash("gamma")));
    }

    @Test
    void aSpecTheApiServerRefusesShowsAsFailedWithItsMessageAndRecoversWhenFixed() {
        var bad = cluster("delta", 1);
        bad.getSpec().nodeSelector = Map.of("not a label key!", "x");
        operator.create(bad);
        awaitStatus("delta", s -> {
            assertThat(s.phase).isEqualTo(Phase.Failed);
            var ready = Conditions.find(s.conditions, Conditions.READY).orElseThrow();
            assertThat(ready.getReason()).isEqualTo("ReconcileFailed");
            assertThat(ready.getMessage()).contains("StatefulSet").contains("nodeSelector");
            assertThat(Conditions.isTrue(s.conditions, Conditions.DEGRADED)).isTrue();
        });
        // The Event is recorded after the status is written: wait for it too, do not assume it is there yet.
        await("Warning event")
                .atMost(FUNCTIONAL_BOUND)
                .untilAsserted(() -> assertThat(
                                client.v1().events().inNamespace(ns).list().getItems())
                        .anySatisfy(e -> {
                            assertThat(e.getType()).isEqualTo("Warning");
                            assertThat(e.getReason()).isEqualTo("ReconcileFailed");
                        }));

        var fixed = operator.get(DhtCluster.class, "delta");
        fixed.getSpec().nodeSelector = Map.of("disktype", "ssd");
        operator.replace(fixed);
        awaitPhase("delta", Phase.Ready);
    }

    @ParameterizedTest(name = "retainOnDelete={0}")
    @ValueSource(booleans = {true, false})
    void deletingTheClusterRemovesWhatItOwnsAndTheVolumesFollowRetainOnDelete(boolean retain) {
        var spec = cluster("epsilon", 2);
        spec.getSpec().storage = new StorageSpec();
        spec.getSpec().storage.retainOnDelete = retain;
        operator.create(spec);
        awaitPhase("epsilon", Phase.Ready);
        assertThat(claims()).hasSize(2);

        operator.delete(operator.get(DhtCluster.class, "epsilon"));
        await("owned objects collected").atMost(FUNCTIONAL_BOUND).untilAsserted(() -> {
            garbageCollector.collect();
            assertThat(owned("epsilon")).isEmpty();
            assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
        });
        if (retain) {
            assertThat(claims())
                    .hasSize(2)
                    .allSatisfy(c ->
                            assertThat(c.getMetadata().getDeletionTimestamp()).isNull());
        } else {
            // Deleted; the pvc-protection finalizer (its controller does not run here) may keep them terminating.
            assertThat(claims())
                    .allSatisfy(c ->
                            assertThat(c.getMetadata().getDeletionTimestamp()).isNotNull());
        }
    }

    @Test
    void aRestartedOperatorWritesNothingToAnUnchangedCluster() {
        operator.create(cluster("zeta", 3));
        awaitPhase("zeta", Phase.Ready);
        await().atMost(FUNCTIONAL_BOUND).until(() -> statefulSetSettled("zeta"));
        Map<String, String> before = resourceVersions("zeta");
        operator.getOperator().stop();

        var settings = new OperatorSettings(
                Set.of(ns), PLATFORM.defaultNodeImage(), PLATFORM.clusterDomain(), 0, Optional.empty(), Map.of());
        KubeApiServer.installCrd(client); // the whole operator also watches DhtBenchmarks
        try (var restarted = DhtOperator.create(client, settings, new SimpleMeterRegistry(), false)) {
            restarted.start();
            await("first reconcile after restart")
                    .atMost(FUNCTIONAL_BOUND)
                    .until(() -> restarted.writes().reconciles() >= 1);
            // Another event (a pod changes) triggers another full reconcile.
            client.pods().inNamespace(ns).withName("zeta-0").edit(p -> {
                p.getMetadata().getLabels().put("touched", "yes");
                return p;
            });
            await("second reconcile")
                    .atMost(FUNCTIONAL_BOUND)
                    .until(() -> restarted.writes().reconciles() >= 2);

            assertThat(restarted.writes().writes())
                    .as("writes by the restarted operator")
                    .isZero();
            assertThat(resourceVersions("zeta")).isEqualTo(before);
        }
    }

    @Test
    void racksGetAStatefulSetEachPinnedToTheirZoneAndANewTemplateRollsThemOneRackAfterTheOther() {
        fakeMembers("theta", 3, "a", "b", "c");
        var racked = cluster("theta", 7);
        racked.getSpec().racks = List.of(rack("a", "zone-a"), rack("b", "zone-b"), rack("c", "zone-c"));
        operator.create(overFakeMembers(racked));
        awaitStatus("theta", s -> {
            assertThat(s.phase).isEqualTo(Phase.Ready);
            assertThat(s.racksReady).isEqualTo("a 3/3, b 2/2, c 2/2");
            var domains =
                    Conditions.find(s.conditions, Conditions.FAILURE_DOMAINS).orElseThrow();
            assertThat(domains.getStatus()).isEqualTo("True");
            assertThat(domains.getReason()).isEqualTo("RacksBalanced");
        });
        for (var rack : List.of("a", "b", "c")) {
            var sts = operator.get(StatefulSet.class, "theta-" + rack);
            assertThat(sts.getSpec().getSelector().getMatchLabels()).containsEntry(Labels.RACK, rack);
            var pod = sts.getSpec().getTemplate().getSpec();
            assertThat(pod.getAffinity()
                            .getNodeAffinity()
                            .getRequiredDuringSchedulingIgnoredDuringExecution()
                            .getNodeSelectorTerms()
                            .get(0)
                            .getMatchExpressions()
                            .get(0)
                            .getValues())
                    .containsExactly("zone-" + rack);
            assertThat(pod.getContainers().get(0).getEnv())
                    .anySatisfy(e -> assertThat(e.getName()).isEqualTo("DHT_RACK"));
        }
        assertThat(operator.get(StatefulSet.class, "theta-a").getSpec().getReplicas())
                .isEqualTo(3);
        assertThat(client.pods()
                        .inNamespace(ns)
                        .withLabel(Labels.RACK, "c")
                        .list()
                        .getItems())
                .extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrder("theta-c-0", "theta-c-1");
        assertThat(Topology.members(operator.get(ConfigMap.class, "theta-topology")))
                .contains("b=http://theta-b-1.theta-headless." + ns + ".svc.cluster.local:8080")
                .hasSize(7);
        var table = Processes.kubectl("get", "dht", "theta", "-n", ns).orFail("kubectl get dht");
        assertThat(table.stdout()).contains("a 3/3, b 2/2, c 2/2");

        var edited = operator.get(DhtCluster.class, "theta");
        edited.getSpec().jvm = new JvmSpec();
        edited.getSpec().jvm.heap = "512Mi";
        operator.replace(edited);
        awaitStatus("theta", s -> {
            assertThat(s.observedGeneration).isEqualTo(2L);
            assertThat(s.phase).isEqualTo(Phase.Ready);
        });
        await().atMost(FUNCTIONAL_BOUND).until(() -> statefulSets.podsReplacedByRollingUpdate() == 7);
        // Each StatefulSet rolls its own pods one at a time; the operator lets the next rack take the new template only
        // once the rack before has rolled and every pod of it is ready again: never a pod of two racks down together.
        assertThat(statefulSets.replacedPods())
                .containsExactly(
                        "theta-a-2", "theta-a-1", "theta-a-0", "theta-b-1", "theta-b-0", "theta-c-1", "theta-c-0");
        assertThat(client.pods()
                        .inNamespace(ns)
                        .withLabels(Labels.selector("theta"))
                        .list()
                        .getItems())
                .hasSize(7)
                .allSatisfy(p -> assertThat(p.getMetadata().getAnnotations())
                        .containsEntry(
                                Labels.CONFIG_HASH,
                                operator.get(StatefulSet.class, "theta-c")
                                        .getSpec()
                                        .getTemplate()
                                        .getMetadata()
                                        .getAnnotations()
                                        .get(Labels.CONFIG_HASH)));
        assertThat(operator.get(StatefulSet.class, "theta-c")
                        .getSpec()
                        .getUpdateStrategy()
                        .getRollingUpdate()
                        .getPartition())
                .as("the last rack released once its turn came")
                .isZero();
    }

    @Test
    void anOperatorUpgradeKeepsThePlacementOfAClusterMadeBeforeItUntilAskedThenRollsItOnce() {
        var iotaMembers = fakeMembers("iota", 3);
        operator.create(overFakeMembers(cluster("iota", 3)));
        awaitPhase("iota", Phase.Ready);
        operator.getOperator().stop();
        // The StatefulSet as the operator before one-member-per-node wrote it (UnchangedWithoutRacksTest: the kept
        // placement gives that operator's objects exactly): no mark, preferred anti-affinity only.
        var live = operator.get(DhtCluster.class, "iota");
        var spec = dev.dht.operator.model.ClusterModel.from(live, PLATFORM);
        var before = dev.dht.operator.model.DesiredState.of(
                        live, spec.withPlacement(dev.dht.operator.model.Placement.KEPT), 1)
                .statefulSet();
        client.resource(before).fieldManager("dht-operator").forceConflicts().serverSideApply();
        await().atMost(FUNCTIONAL_BOUND)
                .until(() -> statefulSets.podsReplacedByRollingUpdate() == 3 && statefulSetSettled("iota"));
        int rolledBefore = statefulSets.podsReplacedByRollingUpdate();
        Map<String, String> versions = resourceVersions("iota");

        var settings = new OperatorSettings(
                Set.of(ns),
                PLATFORM.defaultNodeImage(),
                PLATFORM.clusterDomain(),
                0,
                Optional.empty(),
                "dht-loadrunner:it",
                iotaMembers.urlsByPod(),
                Optional.empty());
        KubeApiServer.installCrd(client);
        try (var upgraded = DhtOperator.create(client, settings, new SimpleMeterRegistry(), false)) {
            upgraded.start();
            awaitStatus(
                    "iota",
                    s -> assertThat(Conditions.find(s.conditions, Conditions.FAILURE_DOMAINS)
                                    .orElseThrow()
                                    .getReason())
                            .isEqualTo("PlacementKept"));
            // Only the status (the condition's reason) and perhaps an Event: a reconcile under load may write the
            // status
            // twice as pods settle, but it writes none of the cluster's objects (the resource versions below).
            var kinds = new java.util.TreeMap<String, Double>();
            upgraded.writes()
                    .registry()
                    .find(dev.dht.operator.reconciler.WriteMetrics.WRITES)
                    .counters()
                    .forEach(c -> kinds.merge(c.getId().getTag("kind"), c.count(), Double::sum));
            assertThat(kinds.keySet())
                    .as("what the upgraded operator wrote: %s", kinds)
                    .contains(DhtCluster.KIND + "/status")
                    .isSubsetOf(DhtCluster.KIND + "/status", "Event");
            assertThat(statefulSets.podsReplacedByRollingUpdate())
                    .as("no member restarted")
                    .isEqualTo(rolledBefore);
            var kept = resourceVersions("iota");
            kept.remove("DhtCluster/iota");
            versions.remove("DhtCluster/iota");
            assertThat(kept).as("no object of the cluster rewritten").isEqualTo(versions);
            assertThat(operator.get(StatefulSet.class, "iota")
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                            .getAffinity()
                            .getPodAntiAffinity()
                            .getRequiredDuringSchedulingIgnoredDuringExecution())
                    .isEmpty();

            var asked = operator.get(DhtCluster.class, "iota");
            asked.getSpec().allowMultiplePerNode = false;
            client.resource(asked).update();
            awaitStatus("iota", s -> {
                assertThat(s.phase).isEqualTo(Phase.Ready);
                assertThat(Conditions.find(s.conditions, Conditions.FAILURE_DOMAINS)
                                .orElseThrow()
                                .getReason())
                        .isEqualTo("OneMemberPerNode");
            });
            await().atMost(FUNCTIONAL_BOUND)
                    .until(() -> statefulSets.podsReplacedByRollingUpdate() == rolledBefore + 3);
            var sts = operator.get(StatefulSet.class, "iota");
            assertThat(sts.getMetadata().getAnnotations()).containsEntry(Labels.PLACEMENT, "one-per-node");
            assertThat(sts.getSpec()
                            .getTemplate()
                            .getSpec()
                            .getAffinity()
                            .getPodAntiAffinity()
                            .getRequiredDuringSchedulingIgnoredDuringExecution())
                    .hasSize(1);
        }
    }

    // ---------------------------------------------------------------------------------------------

    static dev.dht.operator.api.v1alpha1.RackSpec rack(String name, String zone) {
        var rack = new dev.dht.operator.api.v1alpha1.RackSpec();
        rack.name = name;
        rack.zone = zone;
        return rack;
    }

    DhtCluster cluster(String name, int replicas) {
        var cluster = new DhtCluster();
        cluster.getMetadata().setName(name);
        cluster.getMetadata().setNamespace(ns);
        cluster.setSpec(new DhtClusterSpec());
        cluster.getSpec().replicas = replicas;
        return cluster;
    }

    /** A cluster whose members are fake: they answer HTTP, so its client port is plaintext. */
    static DhtCluster overFakeMembers(DhtCluster cluster) {
        cluster.getSpec().tls = FakeMembers.plaintextClientPort();
        return cluster;
    }

    void awaitPhase(String name, Phase phase) {
        awaitStatus(name, s -> assertThat(s.phase).isEqualTo(phase));
    }

    void awaitStatus(String name, java.util.function.Consumer<dev.dht.operator.api.v1alpha1.DhtClusterStatus> check) {
        waiting().untilAsserted(() -> {
            var cluster = operator.get(DhtCluster.class, name);
            assertThat(cluster.getStatus()).as("status of " + name).isNotNull();
            check.accept(cluster.getStatus());
        });
    }

    ConditionFactory waiting() {
        return await().atMost(FUNCTIONAL_BOUND).pollInterval(Duration.ofMillis(100));
    }

    String configHash(String name) {
        return operator.get(StatefulSet.class, name)
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(Labels.CONFIG_HASH);
    }

    List<HasMetadata> owned(String name) {
        var all = new ArrayList<HasMetadata>();
        for (var kind : List.of(
                StatefulSet.class,
                Service.class,
                ConfigMap.class,
                PodDisruptionBudget.class,
                ServiceAccount.class,
                io.fabric8.kubernetes.api.model.Secret.class,
                io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class)) {
            all.addAll(client.resources(kind)
                    .inNamespace(ns)
                    .withLabel(Labels.INSTANCE, name)
                    .list()
                    .getItems());
        }
        return all;
    }

    List<PersistentVolumeClaim> claims() {
        return client.persistentVolumeClaims().inNamespace(ns).list().getItems();
    }

    boolean statefulSetSettled(String name) {
        var status = operator.get(StatefulSet.class, name).getStatus();
        return status != null
                && status.getReadyReplicas() != null
                && status.getReadyReplicas() == 3
                && client.pods().inNamespace(ns).withLabels(Labels.selector(name)).list().getItems().stream()
                        .allMatch(p -> p.getStatus() != null && p.getStatus().getConditions() != null);
    }

    Map<String, String> resourceVersions(String name) {
        var versions = new TreeMap<String, String>();
        var cluster = operator.get(DhtCluster.class, name);
        versions.put("DhtCluster/" + name, cluster.getMetadata().getResourceVersion());
        for (HasMetadata owned : owned(name)) {
            versions.put(
                    owned.getKind() + "/" + owned.getMetadata().getName(),
                    owned.getMetadata().getResourceVersion());
        }
        // The cluster, 3 ConfigMaps (the client CA bundle), 2 Services, the StatefulSet, PDB, ServiceAccount,
        // NetworkPolicy and 9 Secrets (the members' CA and certificate, the client port's CA and certificate, the
        // operator's and the benchmarks' client certificates, credentials, tokens file); with a plaintext client port
        // (fake members) neither the client CA bundle nor the 4 client-port and client certificates.
        boolean plaintext = cluster.getSpec().tls != null
                && cluster.getSpec().tls.client != null
                && Boolean.FALSE.equals(cluster.getSpec().tls.client.enabled);
        assertThat(versions).hasSize(plaintext ? 13 : 18);
        return versions;
    }
}
