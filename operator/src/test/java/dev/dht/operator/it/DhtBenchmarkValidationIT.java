package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.api.v1alpha1.LoadEngine;
import dev.dht.operator.api.v1alpha1.LoadProfile;
import dev.dht.operator.api.v1alpha1.Tape;
import dev.dht.operator.api.v1alpha1.TargetMode;
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

/** The API server rejects bad DhtBenchmark specs with a message that says what to fix (committed CRD, no operator). */
@ExtendWith(RequiresKubeApiServer.class)
class DhtBenchmarkValidationIT {
    static final String NS = "bench-validation";
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
                Arguments.of("no cluster", "rate: 10", "spec.cluster: Required value"),
                Arguments.of(
                        "ramp without its end",
                        "cluster: kv\n  profile: ramp",
                        "spec.rampTo is required with profile ramp (the rate the ramp rises to)"),
                Arguments.of(
                        "ack above from",
                        "cluster: kv\n  replicas: 3/2",
                        "spec.replicas is ack/from and ack must not exceed from"),
                Arguments.of(
                        "replicas not ack/from", "cluster: kv\n  replicas: q/3", "spec.replicas in body should match"),
                Arguments.of("a tape twice", "cluster: kv\n  tapes: [mixed, mixed]", "spec.tapes lists a tape twice"),
                Arguments.of("an unknown tape", "cluster: kv\n  tapes: [get-all]", "Unsupported value: \"get-all\""),
                Arguments.of("no tape", "cluster: kv\n  tapes: []", "spec.tapes in body should have at least 1 items"),
                Arguments.of(
                        "an event twice",
                        "cluster: kv\n  profiler: {events: [cpu, cpu]}",
                        "spec.profiler.events lists an event twice"),
                Arguments.of("a duration in days", "cluster: kv\n  duration: 1d", "spec.duration in body should match"),
                Arguments.of("zero rate", "cluster: kv\n  rate: 0", "should be greater than or equal to 1"),
                Arguments.of("unknown target", "cluster: kv\n  target: pods", "Unsupported value: \"pods\""),
                Arguments.of("unknown engine", "cluster: kv\n  engine: wrk2", "Unsupported value: \"wrk2\""),
                Arguments.of(
                        "results size not a quantity",
                        "cluster: kv\n  results: {size: lots}",
                        "results.size must be a positive Kubernetes quantity such as 1Gi"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidSpecs")
    void apiServerRejectsAnInvalidSpecWithAMessageThatSaysWhatToFix(String why, String spec, String message) {
        String name = "bad-" + Math.abs(why.hashCode() % 100000);
        assertThatThrownBy(() -> create(name, spec))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining(message);
        assertThat(client.resources(DhtBenchmark.class)
                        .inNamespace(NS)
                        .withName(name)
                        .get())
                .isNull();
    }

    @Test
    void aBenchmarkNeedsASpecAndAShortName() {
        assertThatThrownBy(() -> client.resource(client.getKubernetesSerialization()
                                .unmarshal(
                                        "apiVersion: dht.dev/v1alpha1\nkind: DhtBenchmark\nmetadata: {name: nospec, namespace: "
                                                + NS + "}\n",
                                        GenericKubernetesResource.class))
                        .create())
                .hasMessageContaining("spec is required: at least spec.cluster");
        assertThatThrownBy(() -> create("b".repeat(DhtBenchmark.MAX_NAME_LENGTH + 1), "cluster: kv"))
                .hasMessageContaining("metadata.name must be at most 40 characters");
    }

    @Test
    void defaultsComeFromTheSchema() {
        var spec = create("defaults", "cluster: kv").getSpec();
        assertThat(spec.tapes).containsExactly(Tape.values());
        assertThat(spec.profile).isEqualTo(LoadProfile.CONST);
        assertThat(spec.engine).isEqualTo(LoadEngine.K6);
        assertThat(spec.rate).isEqualTo(1000);
        assertThat(spec.duration).isEqualTo("60s");
        assertThat(spec.prefill).isEqualTo(10000);
        assertThat(spec.valueSize).isEqualTo(100);
        assertThat(spec.target).isEqualTo(TargetMode.SERVICE);
        assertThat(spec.profiler.duration).isEqualTo("10s");
        assertThat(spec.profiler.events).as("unset: the cluster's events").isNull();
        assertThat(spec.results.size).isEqualTo("1Gi");
        assertThat(spec.results.retainOnDelete).isFalse();
    }

    @Test
    void theSampleManifestIsAccepted() {
        var sample = client.getKubernetesSerialization()
                .unmarshal(Repo.read("manifests/dhtbenchmark-sample.yaml"), GenericKubernetesResource.class);
        sample.getMetadata().setNamespace(NS);
        client.resource(sample).create();
        var stored = client.resources(DhtBenchmark.class)
                .inNamespace(NS)
                .withName("sample")
                .get();
        assertThat(stored.getSpec().cluster).isEqualTo("dht");
        assertThat(stored.getSpec().tapes).containsExactly(Tape.PUT_UNIQUE, Tape.GET_UNIFORM);
    }

    static DhtBenchmark create(String name, String spec) {
        String yaml = "apiVersion: dht.dev/v1alpha1\nkind: DhtBenchmark\nmetadata:\n  name: " + name + "\n  namespace: "
                + NS + "\nspec:\n  " + spec + "\n";
        // Sent as an untyped object, like kubectl would: the Java enums must not get in the way.
        var raw = client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
        client.resource(raw).create();
        return client.resources(DhtBenchmark.class)
                .inNamespace(NS)
                .withName(name)
                .get();
    }
}
