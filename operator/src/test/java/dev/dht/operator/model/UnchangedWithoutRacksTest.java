package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An operator upgrade changes nothing of a cluster without racks made before them: every object it owns keeps the
 * content, so the desired-hash stamps equal those the previous operator wrote and the reconciler writes nothing (no
 * pod restarts). The stamps below were computed by the operator of commit f09ee83 (before racks) for the same specs.
 * Its members serve plaintext on the client port, which the reconciler observes on the live StatefulSet and hands to
 * the model (a new cluster gets client TLS by default; that difference is NodeSecurityTest's).
 */
class UnchangedWithoutRacksTest {
    /** ServiceAccount, config, topology, headless and client Service, PDB, StatefulSet, as f09ee83 stamped them. */
    static Stream<Arguments> before() {
        return Stream.of(
                Arguments.of(
                        "default",
                        (Consumer<DhtClusterSpec>) s -> {},
                        List.of(
                                "6de95a82b938bd30c3f3",
                                "aab874e4babfae2269a4",
                                "b89e2884b3e6a4b875e2",
                                "b2020dc0ea7da81e5c27",
                                "903ffd333c3e1be2811a",
                                "db73786500c0062b4e2d",
                                "550ff9b01870126c91e5")),
                Arguments.of(
                        "five members",
                        (Consumer<DhtClusterSpec>) s -> s.replicas = 5,
                        List.of(
                                "6de95a82b938bd30c3f3",
                                "aab874e4babfae2269a4",
                                "34e92be3e9294e2283c4",
                                "b2020dc0ea7da81e5c27",
                                "903ffd333c3e1be2811a",
                                "db73786500c0062b4e2d",
                                "b1a28d0bb6bfb7a032c1")),
                Arguments.of(
                        "profiler sidecar",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.profiler = new ProfilerSpec();
                            s.profiler.enabled = true;
                        },
                        List.of(
                                "6de95a82b938bd30c3f3",
                                "66d419e373b5cd07c2e6",
                                "b89e2884b3e6a4b875e2",
                                "b2020dc0ea7da81e5c27",
                                "903ffd333c3e1be2811a",
                                "db73786500c0062b4e2d",
                                "232b0d471f101f1046d4")),
                Arguments.of(
                        "own affinity, selector, tolerations",
                        (Consumer<DhtClusterSpec>) s -> {
                            s.affinity = new AffinityBuilder()
                                    .withNewNodeAffinity()
                                    .endNodeAffinity()
                                    .build();
                            s.nodeSelector = Map.of("disk", "ssd");
                            s.tolerations = List.of(new TolerationBuilder()
                                    .withKey("dedicated")
                                    .withOperator("Exists")
                                    .build());
                        },
                        List.of(
                                "6de95a82b938bd30c3f3",
                                "aab874e4babfae2269a4",
                                "b89e2884b3e6a4b875e2",
                                "b2020dc0ea7da81e5c27",
                                "903ffd333c3e1be2811a",
                                "db73786500c0062b4e2d",
                                "67476eff90e36b006406")));
    }

    static List<String> stamps(DesiredState desired) {
        return desired.inApplyOrder().stream().map(Hashing::stampOf).toList();
    }

    /** @param liveAnnotations the live StatefulSet's annotations, empty for a new cluster (no members yet) */
    static DesiredState desired(Consumer<DhtClusterSpec> change, Optional<Map<String, String>> liveAnnotations) {
        var cluster = Clusters.cluster(change);
        // A live cluster's members were made by f09ee83: plaintext on the client port.
        var spec = ClusterModel.from(cluster, Clusters.PLATFORM, liveAnnotations.map(a -> false));
        return DesiredState.of(cluster, spec.withPlacement(Placement.decide(spec, liveAnnotations)), 1);
    }

    /** The change with client TLS off: on by default for a new cluster, off here to see placement as the only change. */
    static Consumer<DhtClusterSpec> plaintext(Consumer<DhtClusterSpec> change) {
        return s -> {
            change.accept(s);
            s.tls = new dev.dht.operator.api.v1alpha1.TlsSpec();
            s.tls.client = new dev.dht.operator.api.v1alpha1.ClientTlsSpec();
            s.tls.client.enabled = false;
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("before")
    void aClusterMadeBeforeRacksKeepsEveryObjectAsItWas(
            String name, Consumer<DhtClusterSpec> change, List<String> stampsBefore) {
        // Its live StatefulSet carries only the old operator's stamp: no placement mark.
        var kept = desired(change, Optional.of(Map.of(Labels.DESIRED_HASH, stampsBefore.getLast())));
        assertThat(kept.model().placement()).isEqualTo(Placement.KEPT);
        assertThat(stamps(kept)).isEqualTo(stampsBefore);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("before")
    void aNewClusterWithoutRacksDiffersOnlyInItsStatefulSetsPlacement(
            String name, Consumer<DhtClusterSpec> change, List<String> stampsBefore) {
        var plaintext = plaintext(change);
        var created = desired(plaintext, Optional.empty());
        assertThat(created.model().placement()).isEqualTo(Placement.ONE_PER_NODE);
        var stamps = stamps(created);
        assertThat(stamps.subList(0, 6))
                .as("Services, ConfigMaps (topology included), PDB, ServiceAccount")
                .isEqualTo(stampsBefore.subList(0, 6));
        StatefulSet sts = created.statefulSet();
        assertThat(sts.getMetadata().getName()).isEqualTo("kv");
        assertThat(sts.getSpec().getSelector().getMatchLabels()).isEqualTo(Labels.selector("kv"));
        assertThat(sts.getMetadata().getAnnotations()).containsEntry(Labels.PLACEMENT, Placement.MARK);
        // The template differs in its placement only: the kept one with the default placement put back is the same.
        var keptTemplate = desired(plaintext, Optional.of(Map.of()))
                .statefulSet()
                .getSpec()
                .getTemplate();
        var template = sts.getSpec().getTemplate();
        template.getSpec().setAffinity(keptTemplate.getSpec().getAffinity());
        template.getSpec().setTopologySpreadConstraints(keptTemplate.getSpec().getTopologySpreadConstraints());
        assertThat(template).isEqualTo(keptTemplate);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("before")
    void oncePlacedByThisOperatorTheDefaultStays(String name, Consumer<DhtClusterSpec> change, List<String> unused) {
        var marked = desired(change, Optional.of(Map.of(Labels.PLACEMENT, Placement.MARK)));
        assertThat(marked.model().placement()).isEqualTo(Placement.ONE_PER_NODE);
        assertThat(stamps(marked)).isEqualTo(stamps(desired(plaintext(change), Optional.empty())));
        HasMetadata sts = marked.statefulSet();
        assertThat(sts.getMetadata().getAnnotations()).containsEntry(Labels.PLACEMENT, Placement.MARK);
    }
}
