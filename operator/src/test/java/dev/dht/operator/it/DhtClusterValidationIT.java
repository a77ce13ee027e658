package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.Repo;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The API server itself rejects bad DhtCluster specs, with a message that says what to fix. Uses
 * the committed CRD from crds/ (what users install), no operator.
 */
@ExtendWith(RequiresKubeApiServer.class)
class DhtClusterValidationIT {
    static final String NS = "validation";
    static KubernetesClient client;

    @BeforeAll
    static void installCrd() {
        client = KubeApiServer.client();
        KubeApiServer.installCrd(client);
        client.resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NS)
                        .endMetadata()
                        .build())
                .serverSideApply();
    }

    @AfterAll
    static void close() {
        client.close();
    }

    static Stream<Arguments> invalidSpecs() {
        return Stream.of(
                Arguments.of(
                        "replication factor above replicas",
                        "replicas: 2\n  replication: {factor: 3}",
                        "spec.replication.factor must not exceed spec.replicas"),
                Arguments.of(
                        "zero replicas",
                        "replicas: 0",
                        "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"),
                Arguments.of("negative replicas", "replicas: -2", "should be greater than or equal to 1"),
                Arguments.of(
                        "more members than a ring holds",
                        "replicas: 1025",
                        "spec.replicas in body should be less than or equal to 1024"),
                Arguments.of(
                        "storage size is not a quantity",
                        "storage: {size: ten-gigs}",
                        "storage.size must be a positive Kubernetes quantity such as 10Gi"),
                Arguments.of(
                        "storage size is zero",
                        "storage: {size: '0'}",
                        "storage.size must be a positive Kubernetes quantity"),
                Arguments.of(
                        "memory request is not a quantity",
                        "resources: {requests: {memory: lots}}",
                        "spec.resources.requests.memory: Invalid value: \"string\": memory must be a positive Kubernetes quantity"),
                Arguments.of(
                        "cpu limit is not a quantity",
                        "resources: {limits: {cpu: 2cores}}",
                        "cpu must be a positive Kubernetes quantity such as 500m or 2"),
                Arguments.of(
                        "memory request above the limit",
                        "resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}",
                        "resources.requests.memory must not exceed resources.limits.memory"),
                Arguments.of("heap is not a quantity", "jvm: {heap: 2GB}", "jvm.heap must be a Kubernetes quantity"),
                Arguments.of(
                        "block cache is not a quantity",
                        "rocksdb: {blockCacheSize: big}",
                        "rocksdb.blockCacheSize must be a positive Kubernetes quantity"),
                Arguments.of(
                        "request timeout is not a duration",
                        "server: {requestTimeout: soon}",
                        "server.requestTimeout must be a duration such as 500ms"),
                Arguments.of(
                        "image and version both",
                        "image: mine/dht:1\n  version: 0.2.0",
                        "spec.image and spec.version name the node image twice: set spec.version"),
                Arguments.of("version is not a release", "version: latest", "spec.version in body should match"),
                Arguments.of("unknown pull policy", "imagePullPolicy: Sometimes", "Unsupported value: \"Sometimes\""),
                Arguments.of(
                        "unknown service type", "service: {type: ExternalName}", "Unsupported value: \"ExternalName\""),
                Arguments.of(
                        "unknown profiler event",
                        "profiler: {events: [cache-misses]}",
                        "Unsupported value: \"cache-misses\""),
                Arguments.of(
                        "backup storage with both a Secret and a cloud identity",
                        "backup: {storage: {endpoint: 'https://s3.eu-west-1.amazonaws.com', bucket: dht-backups,"
                                + " credentialsSecret: {name: s3}, cloudIdentity: {}}}",
                        "spec.backup.storage needs one of credentialsSecret (static keys) or cloudIdentity"),
                Arguments.of(
                        "backup storage with neither a Secret nor a cloud identity",
                        "backup: {storage: {endpoint: 'https://s3.eu-west-1.amazonaws.com', bucket: dht-backups}}",
                        "spec.backup.storage needs one of credentialsSecret (static keys) or cloudIdentity"),
                Arguments.of(
                        "client certificates from cert-manager without an issuer",
                        "tls: {client: {issuer: CertManager}}",
                        "tls.client.issuer CertManager needs tls.client.issuerRef: the cert-manager Issuer or ClusterIssuer"),
                Arguments.of(
                        "unknown client authentication",
                        "tls: {client: {clientAuth: Sometimes}}",
                        "Unsupported value: \"Sometimes\""),
                Arguments.of(
                        "client CA reload grace is not a duration",
                        "tls: {client: {reloadGrace: soon}}",
                        "tls.client.reloadGrace must be a duration such as 90s, 10m or 1h"),
                Arguments.of(
                        "two racks of one name",
                        "replicas: 3\n  racks: [{name: a}, {name: a}]",
                        "spec.racks: every rack needs its own name: rename the duplicate"),
                Arguments.of(
                        "a rack name that is no DNS label",
                        "racks: [{name: Zone_A}]",
                        "spec.racks[0].name in body should match"),
                Arguments.of(
                        "a rack pinned twice",
                        "racks: [{name: a, zone: z1, nodeAffinityLabels: {disk: ssd}}]",
                        "a rack is pinned by zone or by nodeAffinityLabels, not both"),
                Arguments.of(
                        "fewer members than racks",
                        "replicas: 2\n  racks: [{name: a}, {name: b}, {name: c}]",
                        "spec.replicas must be at least the number of racks not being drained"),
                Arguments.of(
                        "every rack drained",
                        "replicas: 2\n  racks: [{name: a, drain: true}]",
                        "at least one rack must hold the members"),
                Arguments.of(
                        "too many racks",
                        "replicas: 20\n  racks: ["
                                + java.util.stream.IntStream.range(0, 17)
                                        .mapToObj(i -> "{name: r" + i + "}")
                                        .collect(java.util.stream.Collectors.joining(", "))
                                + "]",
                        "Too many: 17: must have at most 16 items"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidSpecs")
    void apiServerRejectsAnInvalidSpecWithAMessageThatSaysWhatToFix(String why, String spec, String message) {
        String name = "bad-" + Math.abs(why.hashCode() % 100000);
        assertThatThrownBy(() -> create(name, spec))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining(message);
        assertThat(client.resources(DhtCluster.class)
                        .inNamespace(NS)
                        .withName(name)
                        .get())
                .isNull();
    }

    @Test
    void apiServerRejectsANameTooLongForTheObjectsTheClusterOwns() {
        assertThatThrownBy(() -> create("a".repeat(DhtCluster.MAX_NAME_LENGTH + 1), "replicas: 1"))
                .hasMessageContaining("metadata.name must be at most 40 characters");
    }

    @Test
    void theSampleManifestIsAccepted() {
        var sample = client.getKubernetesSerialization()
                .unmarshal(Repo.read("manifests/dhtcluster-sample.yaml"), GenericKubernetesResource.class);
        sample.getMetadata().setNamespace(NS);
        client.resource(sample).create();
        var stored = client.resources(DhtCluster.class)
                .inNamespace(NS)
                .withName("dht")
                .get();
        assertThat(stored.getSpec().replicas).isEqualTo(3);
        assertThat(stored.getSpec().jvm.heap).isEqualTo("384Mi");
    }

    @Test
    void defaultsComeFromTheSchema() {
        var created = create("defaults", "replicas: 1");
        var spec = created.getSpec();
        assertThat(spec.replicas).isEqualTo(1);
        assertThat(spec.storage.size).isEqualTo("10Gi");
        assertThat(spec.storage.retainOnDelete).isTrue();
        assertThat(spec.storage.retainOnScaleDown).isFalse();
        assertThat(spec.imagePullPolicy.name()).isEqualTo("IfNotPresent");
        assertThat(spec.service.type.name()).isEqualTo("ClusterIP");
        assertThat(spec.service.port).isEqualTo(8080);
        assertThat(spec.resources.limits.memory).isEqualTo("1Gi");
        assertThat(spec.replication.factor)
                .as("the nodes cap the operator's default (3) at replicas: not the schema's")
                .isNull();
    }

    @Test
    void storageCannotChangeAfterCreation() {
        create("storage", "replicas: 1\n  storage: {size: 1Gi}");
        assertThatThrownBy(() -> client.resources(DhtCluster.class)
                        .inNamespace(NS)
                        .withName("storage")
                        .edit(c -> {
                            c.getSpec().storage.size = "2Gi";
                            return c;
                        }))
                .hasMessageContaining("storage.size and storage.storageClassName cannot change after creation");
    }

    @Test
    void scalingBelowTheReplicationFactorIsRejected() {
        create("scale-down", "replicas: 3\n  replication: {factor: 3}");
        assertThatThrownBy(() -> client.resources(DhtCluster.class)
                        .inNamespace(NS)
                        .withName("scale-down")
                        .scale(2))
                .hasMessageContaining("spec.replication.factor must not exceed spec.replicas");
    }

    @Test
    void aRackNameTooLongForItsStatefulSetIsRejected() {
        assertThatThrownBy(() -> create("c".repeat(30), "racks: [{name: " + "r".repeat(22) + "}]"))
                .hasMessageContaining(
                        "a rack's StatefulSet is named <cluster>-<rack>, which must fit in 52 characters");
        assertThat(create("c".repeat(30), "racks: [{name: " + "r".repeat(21) + "}]")
                        .getSpec()
                        .racks)
                .hasSize(1);
    }

    static Stream<Arguments> forbiddenRackChanges() {
        return Stream.of(
                Arguments.of(
                        "racks added to a cluster made without",
                        "replicas: 3",
                        "replicas: 3\n  racks: [{name: a}]",
                        "spec.racks can only be set when the cluster is created"),
                Arguments.of(
                        "every rack removed",
                        "racks: [{name: a, drain: true}, {name: b}]",
                        "replicas: 3",
                        "spec.racks can only be set when the cluster is created, and never emptied"),
                Arguments.of(
                        "racks reordered",
                        "racks: [{name: a}, {name: b}, {name: c}]",
                        "racks: [{name: b}, {name: a}, {name: c}]",
                        "spec.racks can only be appended to"),
                Arguments.of(
                        "a rack inserted before others",
                        "racks: [{name: a}, {name: b}]",
                        "racks: [{name: a}, {name: n}, {name: b}]",
                        "spec.racks can only be appended to"),
                Arguments.of(
                        "a rack renamed",
                        "racks: [{name: a}, {name: b}, {name: c}]",
                        "racks: [{name: a}, {name: x}, {name: c}]",
                        "spec.racks can only be appended to"),
                Arguments.of(
                        "a rack removed without a drain",
                        "racks: [{name: a}, {name: b}, {name: c}]",
                        "racks: [{name: a}, {name: b}]",
                        "a rack is removed only once drained"),
                Arguments.of(
                        "a rack moved to another zone",
                        "racks: [{name: a, zone: z1}, {name: b, zone: z2}]",
                        "racks: [{name: a, zone: z1}, {name: b, zone: z3}]",
                        "a rack's zone and nodeAffinityLabels cannot change"),
                Arguments.of(
                        "a rack's node labels changed",
                        "racks: [{name: a, nodeAffinityLabels: {row: '1'}}]",
                        "racks: [{name: a, nodeAffinityLabels: {row: '2'}}]",
                        "a rack's zone and nodeAffinityLabels cannot change"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forbiddenRackChanges")
    void theApiServerRefusesARackChangeThatWouldMoveMembers(String why, String before, String after, String message) {
        String name = "racks-" + Math.abs(why.hashCode() % 100000);
        create(name, before);
        assertThatThrownBy(() -> replaceSpec(name, after))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining(message);
    }

    @Test
    void racksCanBeAppendedDrainedAndThenRemovedOnceEmpty() {
        create("rack-life", "replicas: 4\n  racks: [{name: a}, {name: b}]");
        replaceSpec("rack-life", "replicas: 6\n  racks: [{name: a}, {name: b}, {name: c}]");
        replaceSpec("rack-life", "replicas: 6\n  racks: [{name: a}, {name: b, drain: true}, {name: c}]");
        // the operator reports the drained rack still running a leaving member: it cannot go yet
        writeRackStatus("rack-life", "b", 0, 1);
        assertThatThrownBy(() -> replaceSpec("rack-life", "replicas: 6\n  racks: [{name: a}, {name: c}]"))
                .hasMessageContaining("a drained rack is removed only once it holds no member and runs no pod");
        writeRackStatus("rack-life", "b", 0, 0);
        replaceSpec("rack-life", "replicas: 6\n  racks: [{name: a}, {name: c}]");
        assertThat(client.resources(DhtCluster.class)
                        .inNamespace(NS)
                        .withName("rack-life")
                        .get()
                        .getSpec()
                        .racks)
                .extracting(r -> r.name)
                .containsExactly("a", "c");
    }

    @Test
    void scalingBelowTheNumberOfRacksIsRejected() {
        create("rack-scale", "replicas: 3\n  racks: [{name: a}, {name: b}, {name: c}]");
        assertThatThrownBy(() -> client.resources(DhtCluster.class)
                        .inNamespace(NS)
                        .withName("rack-scale")
                        .scale(2))
                .hasMessageContaining("spec.replicas must be at least the number of racks");
    }

    /** Replaces the spec as kubectl apply of an edited manifest would (untyped, the old spec's fields gone). */
    static void replaceSpec(String name, String spec) {
        var stored = client.genericKubernetesResources("dht.dev/v1alpha1", "DhtCluster")
                .inNamespace(NS)
                .withName(name)
                .get();
        String yaml = "spec:\n  " + spec + "\n";
        var raw = client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
        stored.setAdditionalProperty("spec", raw.getAdditionalProperties().get("spec"));
        client.resource(stored).update();
    }

    @Test
    void theFeatureLevelIsNeverLowered() {
        assertThatThrownBy(() -> create("level-zero", "replicas: 1\n  featureLevel: 0"))
                .hasMessageContaining("featureLevel")
                .hasMessageContaining("greater than or equal to 1");
        create("level", "replicas: 3\n  featureLevel: 2");
        assertThatThrownBy(() -> replaceSpec("level", "replicas: 3\n  featureLevel: 1"))
                .hasMessageContaining("spec.featureLevel cannot be lowered");
        replaceSpec("level", "replicas: 3"); // back to automatic: it only ever raises
        // the members run at 2 (the operator's status): 1 is below what they run, though the spec never said 2
        var cluster = client.resources(DhtCluster.class)
                .inNamespace(NS)
                .withName("level")
                .get();
        var status = new dev.dht.operator.api.v1alpha1.DhtClusterStatus();
        status.featureLevel = 2;
        cluster.setStatus(status);
        client.resource(cluster).updateStatus();
        assertThatThrownBy(() -> replaceSpec("level", "replicas: 3\n  featureLevel: 1"))
                .hasMessageContaining("spec.featureLevel cannot be lower than the level the members already run at"
                        + " (status.featureLevel)");
        replaceSpec("level", "replicas: 3\n  featureLevel: 2");
        replaceSpec("level", "replicas: 4\n  featureLevel: 2"); // an unrelated change keeps its level
        assertThat(client.resources(DhtCluster.class)
                        .inNamespace(NS)
                        .withName("level")
                        .get()
                        .getSpec()
                        .featureLevel)
                .isEqualTo(2);
    }

    /** The operator's view of one rack, written through the status subresource. */
    static void writeRackStatus(String name, String rack, int members, int replicas) {
        var cluster = client.resources(DhtCluster.class)
                .inNamespace(NS)
                .withName(name)
                .get();
        var status = new dev.dht.operator.api.v1alpha1.DhtClusterStatus();
        status.racks = java.util.List.of(new dev.dht.operator.api.v1alpha1.RackStatus(rack, members, replicas, 0, 0));
        cluster.setStatus(status);
        client.resource(cluster).updateStatus();
    }

    static DhtCluster create(String name, String spec) {
        String yaml = "apiVersion: dht.dev/v1alpha1\nkind: DhtCluster\nmetadata:\n  name: " + name + "\n  namespace: "
                + NS + "\nspec:\n  " + spec + "\n";
        // Sent as an untyped object, like kubectl would: the Java enums must not get in the way.
        var raw = client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
        client.resource(raw).create();
        return client.resources(DhtCluster.class).inNamespace(NS).withName(name).get();
    }
}
