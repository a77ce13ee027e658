package dev.dht.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import org.junit.jupiter.api.Test;

/** The members' profiler sidecar: there exactly when the cluster enables the profiler, and harmless. */
class ProfilerSidecarTest {
    @Test
    void noSidecarWithoutTheProfiler() {
        var pod =
                Clusters.desired(s -> {}).statefulSet().getSpec().getTemplate().getSpec();
        assertThat(pod.getContainers()).extracting(c -> c.getName()).containsExactly("node");
    }

    @Test
    void withTheProfilerEachMemberGetsTheSidecarOfTheRunnerImage() {
        var pod = Clusters.desired(s -> {
                    s.profiler = new ProfilerSpec();
                    s.profiler.enabled = true;
                })
                .statefulSet()
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(pod.getContainers()).extracting(c -> c.getName()).containsExactly("node", "profiler");
        var sidecar = pod.getContainers().get(1);
        assertThat(sidecar.getImage()).as("named like the node image").isEqualTo("dht-loadrunner:test");
        assertThat(sidecar.getCommand()).containsExactly("python3", "/opt/dht/py/profiler_sidecar.py");
        assertThat(sidecar.getArgs())
                .as("the client port speaks TLS (a new cluster's default): the sidecar too")
                .containsExactly(
                        "--port",
                        "8079",
                        "--node",
                        "https://127.0.0.1:8080",
                        "--tokens",
                        "/etc/dht/auth/tokens",
                        "--tls",
                        "/etc/dht/client-tls");
        assertThat(sidecar.getPorts())
                .singleElement()
                .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(8079));
        assertThat(sidecar.getReadinessProbe())
                .as("its state never takes the member out of the Services")
                .isNull();
        assertThat(sidecar.getLivenessProbe()).isNull();
        assertThat(sidecar.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(sidecar.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sidecar.getSecurityContext().getCapabilities().getAdd())
                .as("no ptrace: the node profiles itself")
                .isNullOrEmpty();
        assertThat(pod.getShareProcessNamespace()).isNull();
        assertThat(sidecar.getVolumeMounts())
                .as("it keeps nothing (the answer carries the flamegraph); it reads the"
                        + " tokens file and the client port's certificate")
                .extracting(m -> m.getMountPath() + (m.getReadOnly() ? " ro" : ""))
                .containsExactly("/etc/dht/auth ro", "/etc/dht/client-tls ro");
    }

    @Test
    void theRunnerImageFollowsTheNodeImagesRegistryAndTag() {
        assertThat(new Platform("registry.example:5000/team/dht-node:1.2", "cluster.local").runnerImage())
                .isEqualTo("registry.example:5000/team/dht-loadrunner:1.2");
        assertThat(new Platform("dht-node", "cluster.local").runnerImage()).isEqualTo("dht-loadrunner:latest");
        assertThat(new Platform("dht-node:x", "cluster.local", "my-runner:7").runnerImage())
                .isEqualTo("my-runner:7");
    }
}
