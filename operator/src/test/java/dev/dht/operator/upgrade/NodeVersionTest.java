package dev.dht.operator.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.model.Platform;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodeVersionTest {
    static final Platform OPERATOR = new Platform("reg:5000/dht/dht-node:0.3.0", "cluster.local");

    @Test
    void aClusterThatNamesNoVersionKeepsTheImagesItsPodsRun() {
        var platform = NodeVersion.platformFor(
                new DhtClusterSpec(), OPERATOR, List.of(live("dht-node:0.2.0", "dht-loadrunner:0.2.0")));
        assertThat(platform.defaultNodeImage()).isEqualTo("dht-node:0.2.0");
        assertThat(platform.runnerImage()).isEqualTo("dht-loadrunner:0.2.0");
        assertThat(platform.clusterDomain()).isEqualTo("cluster.local");
    }

    @Test
    void aNewClusterTakesTheOperatorsImages() {
        var platform = NodeVersion.platformFor(new DhtClusterSpec(), OPERATOR, List.of());
        assertThat(platform.defaultNodeImage()).isEqualTo("reg:5000/dht/dht-node:0.3.0");
        assertThat(platform.runnerImage()).isEqualTo("reg:5000/dht/dht-loadrunner:0.3.0");
    }

    @Test
    void specVersionIsTheOperatorsRepositoryAtThatTagAndANewNodeImageTakesTheOperatorsSidecar() {
        var spec = new DhtClusterSpec();
        spec.version = "0.3.0";
        var platform = NodeVersion.platformFor(
                spec, OPERATOR, List.of(live("reg:5000/dht/dht-node:0.2.0", "reg:5000/dht/dht-loadrunner:0.2.0")));
        assertThat(platform.defaultNodeImage()).isEqualTo("reg:5000/dht/dht-node:0.3.0");
        assertThat(platform.runnerImage()).isEqualTo("reg:5000/dht/dht-loadrunner:0.3.0");
        spec.version = "0.2.0"; // the version the pods run: nothing changes
        assertThat(NodeVersion.platformFor(
                                spec,
                                OPERATOR,
                                List.of(live("reg:5000/dht/dht-node:0.2.0", "reg:5000/dht/dht-loadrunner:0.2.0")))
                        .runnerImage())
                .isEqualTo("reg:5000/dht/dht-loadrunner:0.2.0");
    }

    @Test
    void specImageWinsOverEverything() {
        var spec = new DhtClusterSpec();
        spec.image = "mine/dht:custom";
        assertThat(NodeVersion.image(spec, "dht-node:0.3.0", Optional.of("dht-node:0.2.0")))
                .isEqualTo("mine/dht:custom");
    }

    @Test
    void theRepositoryIsTheReferenceWithoutTagOrDigest() {
        assertThat(NodeVersion.repository("dht-node:0.2.0")).isEqualTo("dht-node");
        assertThat(NodeVersion.repository("dht-node")).isEqualTo("dht-node");
        assertThat(NodeVersion.repository("reg:5000/a/dht-node:0.2.0")).isEqualTo("reg:5000/a/dht-node");
        assertThat(NodeVersion.repository("reg:5000/dht-node@sha256:abc")).isEqualTo("reg:5000/dht-node");
    }

    static StatefulSet live(String node, String profiler) {
        return new StatefulSetBuilder()
                .withNewSpec()
                .withNewTemplate()
                .withNewSpec()
                .addNewContainer()
                .withName("node")
                .withImage(node)
                .endContainer()
                .addNewContainer()
                .withName("profiler")
                .withImage(profiler)
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }
}
