package dev.dht.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.testing.Helm;
import dev.dht.operator.testing.Repo;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** helm lint and helm template of charts/dht-operator, checked object by object. */
class HelmChartTest {
    /** The operator's whole permission set (least privilege: what the reconciler reads and writes). */
    static final Map<String, List<String>> RULES = new TreeMap<>(Map.ofEntries(
            Map.entry("dht.dev/dhtclusters", List.of("get", "list", "watch")),
            Map.entry("dht.dev/dhtclusters/status", List.of("patch")),
            Map.entry("dht.dev/dhtclusters/finalizers", List.of("update")),
            Map.entry("apps/statefulsets", List.of("get", "list", "watch", "create", "patch")),
            Map.entry("/services", List.of("get", "list", "watch", "create", "patch")),
            Map.entry("/configmaps", List.of("get", "list", "watch", "create", "patch")),
            Map.entry("/serviceaccounts", List.of("get", "list", "watch", "create", "patch")),
            Map.entry("policy/poddisruptionbudgets", List.of("get", "list", "watch", "create", "patch")),
            Map.entry("/pods", List.of("get", "list", "watch", "delete")),
            Map.entry("/pods/portforward", List.of("get", "create")),
            Map.entry("/events", List.of("create")),
            Map.entry("dht.dev/dhtbenchmarks", List.of("get", "list", "watch")),
            Map.entry("dht.dev/dhtbenchmarks/status", List.of("patch")),
            Map.entry("dht.dev/dhtbenchmarks/finalizers", List.of("update")),
            Map.entry("dht.dev/dhtbackups", List.of("get", "list", "watch", "create", "delete")),
            Map.entry("dht.dev/dhtbackups/status", List.of("patch")),
            Map.entry("dht.dev/dhtbackups/finalizers", List.of("update")),
            Map.entry("dht.dev/dhtbackupschedules", List.of("get", "list", "watch")),
            Map.entry("dht.dev/dhtbackupschedules/status", List.of("patch")),
            Map.entry("dht.dev/dhtbackupschedules/finalizers", List.of("update")),
            Map.entry("dht.dev/dhtusers", List.of("get", "list", "watch")),
            Map.entry("dht.dev/dhtusers/status", List.of("patch")),
            Map.entry("dht.dev/dhtusers/finalizers", List.of("update")),
            Map.entry("batch/jobs", List.of("get", "list", "watch", "create", "patch")),
            Map.entry("/persistentvolumeclaims", List.of("get", "list", "watch", "create", "delete")),
            Map.entry("/secrets", List.of("get", "list", "watch", "create", "patch")),
            Map.entry(
                    "networking.k8s.io/networkpolicies", List.of("get", "list", "watch", "create", "patch", "delete")),
            Map.entry("cert-manager.io/certificates", List.of("get", "create", "patch"))));
    /**
     * The only deletions: a member replaced on request (MemberReplacement) loses its claim and its pod; a
     * NetworkPolicy switched off is removed.
     */
    // dhtbackups: a schedule's retention removes the DhtBackups of what it deleted from the store
    static final List<String> DELETABLE = List.of("pods", "persistentvolumeclaims", "networkpolicies", "dhtbackups");

    @Test
    void lintPassesStrict() {
        var result = Helm.run("lint", "--strict", Helm.CHART).orFail("helm lint --strict");
        assertThat(result.stdout()).contains("1 chart(s) linted, 0 chart(s) failed");
    }

    @Test
    void defaultValuesWatchAllNamespacesWithAClusterRoleOfLeastPrivilege() {
        var objects = Helm.template("dht-operator", "dht-system");
        assertThat(kinds(objects))
                .containsExactlyInAnyOrder(
                        "ServiceAccount",
                        "ClusterRole",
                        "ClusterRoleBinding",
                        "Role",
                        "RoleBinding",
                        "Service",
                        "Deployment",
                        "NetworkPolicy");
        var role = as(find(objects, "ClusterRole"), ClusterRole.class);
        assertThat(rules(role.getRules())).isEqualTo(RULES);
        assertThat(role.getRules()).allSatisfy(r -> {
            assertThat(r.getVerbs()).doesNotContain("*", "deletecollection");
            assertThat(r.getResources()).doesNotContain("*");
            if (r.getVerbs().contains("delete")) {
                assertThat(r.getResources()).isSubsetOf(DELETABLE);
            }
        });
        var deployment = as(find(objects, "Deployment"), Deployment.class);
        assertThat(deployment.getMetadata().getNamespace()).isEqualTo("dht-system");
        var container =
                deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(container.getImage()).isEqualTo("dht-operator:" + OperatorSettings.VERSION);
        var env = container.getEnv().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(e -> e.getName(), e -> e.getValue()));
        assertThat(env)
                .containsEntry("DHT_OPERATOR_WATCH_NAMESPACES", "")
                .containsEntry("DHT_OPERATOR_NODE_IMAGE", "dht-node:" + OperatorSettings.VERSION)
                .containsEntry("DHT_OPERATOR_RUNNER_IMAGE", "dht-loadrunner:" + OperatorSettings.VERSION)
                .containsEntry("DHT_OPERATOR_LOG_FORMAT", "json")
                .containsEntry("DHT_OPERATOR_LEADER_ELECTION", "true");
        assertThat(container.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("DHT_OPERATOR_NAMESPACE");
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.namespace");
        });
        assertThat(env.keySet().stream().filter(k -> k.startsWith("DHT_OPERATOR_")))
                .as("every variable the chart sets is one the operator reads")
                .allMatch(OperatorSettings.VARIABLES::containsKey);
        assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName())
                .isEqualTo("dht-operator");
        // The clusters' NetworkPolicies admit the operator's pods by these labels and namespace.
        var podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
        var self = OperatorSettings.parseSelf(env.get("DHT_OPERATOR_POD_LABELS"), "dht-system")
                .orElseThrow();
        assertThat(podLabels).containsAllEntriesOf(self.podLabels());
        assertThat(self.podLabels()).containsOnlyKeys("app.kubernetes.io/name", "app.kubernetes.io/instance");
    }

    @Test
    void theOperatorsOwnPolicyAdmitsOnlyItsHttpPort() {
        var policy = as(
                find(Helm.template("dht-operator", "dht-system"), "NetworkPolicy"),
                io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class);
        var deployment = as(find(Helm.template("dht-operator", "dht-system"), "Deployment"), Deployment.class);
        assertThat(policy.getSpec().getPodSelector().getMatchLabels())
                .isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
        assertThat(policy.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getPorts())
                    .singleElement()
                    .satisfies(p -> assertThat(p.getPort().getIntVal()).isEqualTo(8081));
            assertThat(rule.getFrom()).isNullOrEmpty();
        });
        var restricted = as(
                find(
                        Helm.template(
                                "dht-operator",
                                "dht-system",
                                "--set-json",
                                "networkPolicy.metricsFrom=[{\"namespaceSelector\":{\"matchLabels\":{\"team\":\"monitoring\"}}}]"),
                        "NetworkPolicy"),
                io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class);
        assertThat(restricted.getSpec().getIngress().get(0).getFrom())
                .singleElement()
                .satisfies(p ->
                        assertThat(p.getNamespaceSelector().getMatchLabels()).containsEntry("team", "monitoring"));
        assertThat(kinds(Helm.template("dht-operator", "dht-system", "--set", "networkPolicy.enabled=false")))
                .doesNotContain("NetworkPolicy");
    }

    @Test
    void watchedNamespacesGetARoleEachAndNothingClusterWide() {
        var objects = Helm.template(
                "dht-operator",
                "dht-system",
                "--set",
                "watchNamespaces={team-a,team-b}",
                "--set",
                "leaderElection.enabled=false",
                "--set",
                "logLevel=DEBUG");
        assertThat(kinds(objects)).doesNotContain("ClusterRole", "ClusterRoleBinding");
        assertThat(objects.stream()
                        .filter(o -> o.getKind().equals("Role"))
                        .map(o -> o.getMetadata().getNamespace()))
                .containsExactlyInAnyOrder("team-a", "team-b");
        assertThat(objects.stream()
                        .filter(o -> o.getKind().equals("RoleBinding"))
                        .map(o -> o.getMetadata().getNamespace()))
                .containsExactlyInAnyOrder("team-a", "team-b");
        var env = as(find(objects, "Deployment"), Deployment.class)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getEnv();
        assertThat(env).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("DHT_OPERATOR_WATCH_NAMESPACES");
            assertThat(e.getValue()).isEqualTo("team-a,team-b");
        });
        assertThat(env).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("DHT_OPERATOR_LOG_LEVEL");
            assertThat(e.getValue()).isEqualTo("DEBUG");
        });
    }

    @Test
    void includeCrdsRendersTheGeneratedCrd() {
        var objects = Helm.template("dht-operator", "dht-system", "--include-crds");
        var crds = objects.stream()
                .filter(o -> o.getKind().equals("CustomResourceDefinition"))
                .toList();
        var committed = Repo.CRD_FILES.stream()
                .map(f -> Serialization.unmarshal(Repo.read("crds/" + f), GenericKubernetesResource.class))
                .toList();
        assertThat(crds).containsExactlyInAnyOrderElementsOf(committed);
    }

    @Test
    void monitoringObjectsAreOptionalAndScrapeTheMembersOnceEach() {
        assertThat(kinds(Helm.template("dht-operator", "dht-system")))
                .doesNotContain("PodMonitor", "ServiceMonitor", "ConfigMap");
        var objects = Helm.template(
                "dht-operator",
                "dht-system",
                "--set",
                "serviceMonitor.enabled=true",
                "--set",
                "serviceMonitor.labels.release=prom",
                "--set",
                "grafanaDashboard.enabled=true");
        var pods = find(objects, "PodMonitor");
        assertThat(pods.getMetadata().getLabels()).containsEntry("release", "prom");
        @SuppressWarnings("unchecked")
        var spec = (Map<String, Object>) pods.getAdditionalProperties().get("spec");
        assertThat(spec.get("namespaceSelector")).isEqualTo(Map.of("any", true));
        assertThat(spec.get("selector"))
                .isEqualTo(Map.of(
                        "matchLabels",
                        Map.of(
                                "app.kubernetes.io/name",
                                "dht",
                                "app.kubernetes.io/component",
                                "node",
                                "app.kubernetes.io/managed-by",
                                "dht-operator")));
        assertThat(Serialization.asJson(spec.get("podMetricsEndpoints")))
                .contains("\"port\":\"http\"")
                .contains("\"targetLabel\":\"dht_cluster\"")
                .doesNotContain("authorization");
        // Members whose client port serves TLS only are scraped on their plaintext metrics port, once: not on http.
        @SuppressWarnings("unchecked")
        var endpoints = (List<Map<String, Object>>) spec.get("podMetricsEndpoints");
        assertThat(endpoints).extracting(e -> e.get("port")).containsExactly("metrics", "http");
        assertThat(Serialization.asJson(endpoints.get(1).get("relabelings")))
                .contains("\"sourceLabels\":[\"__meta_kubernetes_pod_label_dht_dev_client_tls\"]")
                .contains("\"action\":\"drop\"");
        // Clusters with client tokens serve /metrics to a read-only token: the PodMonitor can carry one.
        var withToken = find(
                Helm.template(
                        "dht-operator",
                        "dht-system",
                        "--set",
                        "serviceMonitor.enabled=true",
                        "--set",
                        "serviceMonitor.authorization.type=Bearer",
                        "--set",
                        "serviceMonitor.authorization.credentials.name=dht-metrics-token",
                        "--set",
                        "serviceMonitor.authorization.credentials.key=token"),
                "PodMonitor");
        assertThat(Serialization.asJson(withToken.getAdditionalProperties().get("spec")))
                .contains("\"authorization\":{\"credentials\":{\"key\":\"token\",\"name\":\"dht-metrics-token\"},"
                        + "\"type\":\"Bearer\"}");
        assertThat(find(objects, "ServiceMonitor").getMetadata().getNamespace()).isEqualTo("dht-system");
        var dashboard = as(find(objects, "ConfigMap"), io.fabric8.kubernetes.api.model.ConfigMap.class);
        assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        assertThat(dashboard.getData().get("dht.json"))
                .isEqualTo(Repo.read(Helm.CHART + "/dashboards/dht.json").strip());
    }

    @Test
    void chartAppVersionIsTheOperatorVersion() {
        assertThat(Repo.read(Helm.CHART + "/Chart.yaml")).contains("appVersion: \"" + OperatorSettings.VERSION + "\"");
    }

    static List<String> kinds(List<GenericKubernetesResource> objects) {
        return objects.stream().map(GenericKubernetesResource::getKind).toList();
    }

    static GenericKubernetesResource find(List<GenericKubernetesResource> objects, String kind) {
        return objects.stream()
                .filter(o -> o.getKind().equals(kind))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " rendered"));
    }

    static <T> T as(GenericKubernetesResource object, Class<T> type) {
        return Serialization.unmarshal(Serialization.asJson(object), type);
    }

    static Map<String, List<String>> rules(List<PolicyRule> rules) {
        var out = new TreeMap<String, List<String>>();
        for (var rule : rules) {
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    out.put(group + "/" + resource, rule.getVerbs());
                }
            }
        }
        return out;
    }
}
