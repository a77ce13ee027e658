package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.DhtOperator;
import dev.dht.operator.OperatorSettings;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.testing.FakeMembers;
import dev.dht.operator.testing.FakeStatefulSetController;
import dev.dht.operator.testing.Helm;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.Processes;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart's rendered manifests are accepted by a real API server, and the operator does its whole
 * job with exactly the chart's RBAC: it runs as the chart's ServiceAccount (impersonated), so any
 * missing permission fails these tests, and any needless one fails the access checks.
 */
@ExtendWith(RequiresKubeApiServer.class)
class HelmChartIT {
    static final Duration FUNCTIONAL_BOUND = Duration.ofSeconds(60);
    static KubernetesClient admin;

    @BeforeAll
    static void connect() {
        admin = KubeApiServer.client();
    }

    @AfterAll
    static void close() {
        admin.close();
    }

    @Test
    void clusterWideInstallRunsAClusterWithOnlyItsClusterRole() {
        install("dht-operator", "dht-system", "--include-crds");
        String account = "system:serviceaccount:dht-system:dht-operator";
        var settings =
                new OperatorSettings(Set.of(), "dht-node:it", "cluster.local", 0, Optional.of("dht-system"), Map.of());

        runClusterAs(account, "dht-system", settings, "rbac-all");

        assertThat(admin.resources(Lease.class)
                        .inNamespace("dht-system")
                        .withName(DhtOperator.LEASE_NAME)
                        .get())
                .as("leader-election lease taken under the chart's Role")
                .isNotNull();
        assertThat(canI(account, "patch", "statefulsets", "rbac-all")).isTrue();
        assertThat(canI(account, "get", "secrets", "rbac-all")).isTrue();
        assertThat(canI(account, "delete", "secrets", "rbac-all")).isFalse();
        assertThat(canI(account, "delete", "networkpolicies.networking.k8s.io", "rbac-all"))
                .isTrue();
        assertThat(canI(account, "delete", "statefulsets", "rbac-all")).isFalse();
        assertThat(canI(account, "create", "pods", "rbac-all")).isFalse();
        assertThat(canI(account, "update", "dhtclusters.dht.dev", "rbac-all")).isFalse();
    }

    @Test
    void namespacedInstallRunsAClusterInItsNamespaceAndSeesNoOther() {
        install(
                "scoped",
                "dht-scoped",
                "--include-crds",
                "--set",
                "watchNamespaces={team-a}",
                "--set",
                "leaderElection.enabled=false");
        String account = "system:serviceaccount:dht-scoped:scoped-dht-operator";
        var settings =
                new OperatorSettings(Set.of("team-a"), "dht-node:it", "cluster.local", 0, Optional.empty(), Map.of());

        runClusterAs(account, "dht-scoped", settings, "team-a");

        assertThat(canI(account, "list", "dhtclusters.dht.dev", "team-a")).isTrue();
        assertThat(canI(account, "list", "dhtclusters.dht.dev", "team-b")).isFalse();
        assertThat(canI(account, "list", "statefulsets", "team-b")).isFalse();
    }

    /**
     * Runs the operator as the account on a cluster in clusterNamespace: created, Ready, scaled, Ready. Fake members
     * answer its movement polls during the scale (it reaches them through the member URL setting).
     */
    static void runClusterAs(
            String account, String accountNamespace, OperatorSettings settings, String clusterNamespace) {
        namespace(clusterNamespace);
        try (var members = new FakeMembers(admin, clusterNamespace, "rbac", settings.clusterDomain(), 3);
                var asAccount = KubeApiServer.clientAs(
                        account,
                        "system:serviceaccounts",
                        "system:serviceaccounts:" + accountNamespace,
                        "system:authenticated");
                var operator = DhtOperator.create(
                        asAccount,
                        new OperatorSettings(
                                settings.watchNamespaces(),
                                settings.defaultNodeImage(),
                                settings.clusterDomain(),
                                settings.httpPort(),
                                settings.leaseNamespace(),
                                members.urlsByPod()),
                        new SimpleMeterRegistry(),
                        false);
                var statefulSets = new FakeStatefulSetController(admin, clusterNamespace).start()) {
            operator.start();
            var cluster = new DhtCluster();
            cluster.getMetadata().setName("rbac");
            cluster.getMetadata().setNamespace(clusterNamespace);
            cluster.setSpec(new DhtClusterSpec());
            cluster.getSpec().replicas = 2;
            cluster.getSpec().tls = FakeMembers.plaintextClientPort();
            admin.resource(cluster).create();
            awaitPhase(clusterNamespace, Phase.Ready, 2);

            admin.resources(DhtCluster.class)
                    .inNamespace(clusterNamespace)
                    .withName("rbac")
                    .scale(3);
            awaitPhase(clusterNamespace, Phase.Ready, 3);
            assertThat(operator.writes().writes()).isPositive();
            // The Event follows the status write: awaited, not assumed.
            await("events recorded under the chart's RBAC")
                    .atMost(FUNCTIONAL_BOUND)
                    .untilAsserted(() -> assertThat(admin.v1()
                                    .events()
                                    .inNamespace(clusterNamespace)
                                    .list()
                                    .getItems())
                            .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("AllMembersReady")));
        }
    }

    static void awaitPhase(String namespace, Phase phase, int ready) {
        await().atMost(FUNCTIONAL_BOUND).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            var status = admin.resources(DhtCluster.class)
                    .inNamespace(namespace)
                    .withName("rbac")
                    .get()
                    .getStatus();
            assertThat(status).isNotNull();
            assertThat(status.phase).isEqualTo(phase);
            assertThat(status.readyReplicas).isEqualTo(ready);
        });
    }

    /** helm template | apply: every rendered object must be accepted by the API server. */
    static void install(String release, String namespace, String... args) {
        namespace(namespace);
        List<GenericKubernetesResource> objects = Helm.template(release, namespace, args);
        for (var object : objects) {
            if (object.getKind().equals("Role") || object.getKind().equals("RoleBinding")) {
                namespace(object.getMetadata().getNamespace());
            }
        }
        for (var object : objects) {
            if (object.getKind().equals("CustomResourceDefinition")) {
                // Shared by every test class on this API server: applied the one way they all use (it is the
                // same file: HelmChartTest checks that the chart renders crds/ unchanged).
                KubeApiServer.installCrd(admin);
            } else {
                admin.resource(object)
                        .fieldManager("helm-chart-it")
                        .forceConflicts()
                        .serverSideApply();
            }
        }
        assertThat(admin.apps().deployments().inNamespace(namespace).list().getItems())
                .hasSize(1);
    }

    static void namespace(String name) {
        admin.resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build())
                .fieldManager("helm-chart-it")
                .serverSideApply();
    }

    static boolean canI(String account, String verb, String resource, String namespace) {
        var result = Processes.kubectl("auth", "can-i", verb, resource, "-n", namespace, "--as=" + account);
        assertThat(result.stdout().trim()).isIn("yes", "no");
        return result.stdout().trim().equals("yes");
    }
}
