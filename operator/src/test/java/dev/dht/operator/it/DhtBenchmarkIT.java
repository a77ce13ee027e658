package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.api.v1alpha1.BenchmarkPhase;
import dev.dht.operator.api.v1alpha1.BenchmarkProfilerSpec;
import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.api.v1alpha1.DhtBenchmarkSpec;
import dev.dht.operator.api.v1alpha1.DhtBenchmarkStatus;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.ProfilerEvent;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import dev.dht.operator.api.v1alpha1.ResultsSpec;
import dev.dht.operator.api.v1alpha1.Tape;
import dev.dht.operator.api.v1alpha1.TapeResult;
import dev.dht.operator.benchmark.model.BenchmarkNames;
import dev.dht.operator.benchmark.reconciler.DhtBenchmarkReconciler;
import dev.dht.operator.model.Platform;
import dev.dht.operator.reconciler.DhtClusterReconciler;
import dev.dht.operator.reconciler.WriteMetrics;
import dev.dht.operator.testing.FakeGarbageCollector;
import dev.dht.operator.testing.FakeJobs;
import dev.dht.operator.testing.FakeStatefulSetController;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.OperatorUnderTest;
import dev.dht.operator.testing.Processes;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.junit.LocallyRunOperatorExtension;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DhtBenchmarks against a real kube-apiserver + etcd, with the DhtCluster reconciler and the fake StatefulSet
 * controller giving a Ready target cluster, and {@link FakeJobs} playing the Job controller and kubelet on the
 * test's command. Each test gets its own namespace and operator.
 */
@ExtendWith(RequiresKubeApiServer.class)
class DhtBenchmarkIT {
    static final Platform PLATFORM = new Platform("dht-node:it", "cluster.local", "dht-loadrunner:it");
    static final Duration FUNCTIONAL_BOUND = Duration.ofSeconds(60);
    static final String HEADLINE = "{\"tapes\": {\"put-unique\": {\"rps\": 99.9, \"p99_ms\": 4.2, \"errors\": 0,"
            + " \"dropped\": 0}}, \"flamegraphs\": 2, \"problems\": []}";
    final WriteMetrics writes = WriteMetrics.inMemory();
    final KubernetesClient client = KubeApiServer.client();

    @RegisterExtension
    final LocallyRunOperatorExtension operator = OperatorUnderTest.builder(client)
            .withReconciler(new DhtClusterReconciler(PLATFORM, Clock.systemUTC(), writes))
            .withReconciler(new DhtBenchmarkReconciler(PLATFORM, Clock.systemUTC(), writes))
            .build();

    FakeStatefulSetController statefulSets;
    FakeJobs jobs;
    String ns;

    @BeforeEach
    void startFakes() {
        ns = operator.getNamespace();
        statefulSets = new FakeStatefulSetController(client, ns).start();
        jobs = new FakeJobs(client, ns);
    }

    @AfterEach
    void stopFakes() {
        statefulSets.close();
    }

    @Test
    void aRunCreatesItsClaimAndJobThenFollowsTheJobToItsFigures() {
        readyCluster("kv", 2, true);
        operator.create(benchmark("smoke", s -> {
            s.profiler = new BenchmarkProfilerSpec();
            s.profiler.events = List.of(ProfilerEvent.cpu, ProfilerEvent.alloc);
            s.profiler.duration = "5s";
        }));

        var started = awaitStatus("smoke", s -> {
            assertThat(s.phase).isEqualTo(BenchmarkPhase.Pending);
            assertThat(s.runId).matches("\\d{8}-\\d{6}");
            assertThat(s.message).startsWith("waiting for the load Job's pod to start");
        });
        String runId = started.runId;
        assertThat(started.artifactPath).isEqualTo("smoke/" + runId);
        assertThat(started.resultsClaim).isEqualTo("smoke-results");
        assertThat(started.observedGeneration).isEqualTo(1L);

        var claim = operator.get(PersistentVolumeClaim.class, "smoke-results");
        assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
        assertThat(claim.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(ref -> assertThat(ref.getName()).isEqualTo("smoke"));
        var job = operator.get(Job.class, "smoke-" + runId);
        var runner = job.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(runner.getImage()).isEqualTo("dht-loadrunner:it");
        assertThat(String.join(" ", runner.getArgs()))
                .as("a new cluster's client port and the sidecars speak TLS")
                .contains("--targets https://kv." + ns + ".svc.cluster.local:8080")
                .contains("--profiler kv-0=https://kv-0.kv-headless." + ns + ".svc.cluster.local:8079")
                .contains("--profiler kv-1=https://kv-1.kv-headless." + ns + ".svc.cluster.local:8079")
                .contains("--events cpu,alloc --capture 5s --termination-log")
                .contains("--out /results/smoke/" + runId);
        assertThat(runner.getEnv())
                .extracting(e -> e.getName() + "=" + e.getValue())
                .contains(
                        "DHT_CA=/etc/dht/client-ca/ca.crt",
                        "DHT_CLIENT_CERT=/etc/dht/client/tls.crt",
                        "DHT_CLIENT_KEY=/etc/dht/client/tls.key");
        assertThat(job.getSpec().getTemplate().getSpec().getVolumes())
                .as("the CA bundle and the benchmarks' certificate")
                .anySatisfy(v -> assertThat(v.getConfigMap())
                        .isNotNull()
                        .satisfies(c -> assertThat(c.getName()).isEqualTo("kv-client-ca.crt")))
                .anySatisfy(v -> assertThat(v.getSecret())
                        .isNotNull()
                        .satisfies(c -> assertThat(c.getSecretName()).isEqualTo("kv-benchmark-client-tls")));
        assertThat(job.getSpec().getTemplate().getSpec().getVolumes())
                .anySatisfy(v -> assertThat(v.getPersistentVolumeClaim())
                        .isNotNull() // beside the TLS ones
                        .satisfies(c -> assertThat(c.getClaimName()).isEqualTo("smoke-results")));
        assertThat(operator.get(StatefulSet.class, "kv")
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers())
                .as("the members carry the profiler sidecar the Job asks")
                .extracting(c -> c.getName())
                .containsExactly("node", "profiler");

        jobs.start("smoke-" + runId);
        var running = awaitStatus("smoke", s -> assertThat(s.phase).isEqualTo(BenchmarkPhase.Running));
        assertThat(running.startTime).isNotNull();

        jobs.succeed("smoke-" + runId, HEADLINE);
        var done = awaitStatus("smoke", s -> assertThat(s.phase).isEqualTo(BenchmarkPhase.Succeeded));
        assertThat(done.runId).isEqualTo(runId);
        assertThat(done.endTime).isNotNull();
        assertThat(done.tapes)
                .usingRecursiveFieldByFieldElementComparator()
                .containsExactly(new TapeResult("put-unique", 99.9, 4.2, 0L, 0L, null));
        assertThat(done.flamegraphs).isEqualTo(2);
        assertThat(done.message).isEqualTo("1 tape(s) ran; 2 flamegraph(s) in smoke-results:/smoke/" + runId);

        var table = Processes.kubectl("get", "dhtbench", "-n", ns).orFail("kubectl get dhtbench");
        assertThat(table.stdout().lines().findFirst().orElseThrow().split("\\s+"))
                .containsExactly("NAME", "CLUSTER", "ENGINE", "PHASE", "RUN", "RPS", "P99-MS", "AGE");
        assertThat(table.stdout().lines().skip(1).findFirst().orElseThrow())
                .matches("smoke\\s+kv\\s+k6\\s+Succeeded\\s+" + runId + "\\s+99.9\\s+4.2\\s+\\S+");
    }

    @Test
    void aRerunMakesANewRunAndJobAndKeepsTheOldOnesAndASpecChangeSupersedesARunningRun() {
        readyCluster("kv", 1, false);
        operator.create(benchmark("again", s -> {}));
        String first = awaitStatus("again", s -> assertThat(s.runId).isNotNull()).runId;
        await().atMost(FUNCTIONAL_BOUND)
                .until(() -> client.batch()
                                .v1()
                                .jobs()
                                .inNamespace(ns)
                                .withName("again-" + first)
                                .get()
                        != null);
        jobs.start("again-" + first);
        jobs.succeed("again-" + first, HEADLINE);
        awaitStatus("again", s -> assertThat(s.phase).isEqualTo(BenchmarkPhase.Succeeded));
        assertThat(operator.get(DhtBenchmark.class, "again").getStatus().message)
                .contains("no flamegraphs: DhtCluster kv has spec.profiler.enabled false");

        var rerun = operator.get(DhtBenchmark.class, "again");
        rerun.getMetadata().setAnnotations(Map.of(DhtBenchmark.RERUN_ANNOTATION, "1"));
        operator.replace(rerun);
        var second = awaitStatus("again", s -> {
                    assertThat(s.runId).isNotEqualTo(first);
                    assertThat(s.observedRerun).isEqualTo("1");
                    assertThat(s.phase).isEqualTo(BenchmarkPhase.Pending);
                    assertThat(s.history).singleElement().satisfies(old -> {
                        assertThat(old.runId).isEqualTo(first);
                        assertThat(old.phase).isEqualTo(BenchmarkPhase.Succeeded);
                        assertThat(old.tapes).extracting(t -> t.tape).containsExactly("put-unique");
                    });
                })
                .runId;
        await().atMost(FUNCTIONAL_BOUND)
                .untilAsserted(
                        () -> assertThat(jobNames()).containsExactlyInAnyOrder("again-" + first, "again-" + second));
        jobs.start("again-" + second);
        awaitStatus("again", s -> assertThat(s.phase).isEqualTo(BenchmarkPhase.Running));

        var changed = operator.get(DhtBenchmark.class, "again");
        changed.getSpec().rate = 50;
        operator.replace(changed);
        var third = awaitStatus("again", s -> {
                    assertThat(s.observedGeneration).isEqualTo(2L);
                    assertThat(s.runId).isNotIn(first, second);
                    assertThat(s.history)
                            .extracting(r -> r.runId + " " + r.phase)
                            .containsExactly(second + " Failed", first + " Succeeded");
                    assertThat(s.history.get(0).message)
                            .isEqualTo("superseded by run " + s.runId + " before it finished");
                })
                .runId;
        assertThat(client.batch()
                        .v1()
                        .jobs()
                        .inNamespace(ns)
                        .withName("again-" + second)
                        .get()
                        .getSpec()
                        .getSuspend())
                .as("the superseded run's load stops")
                .isTrue();
        await().atMost(FUNCTIONAL_BOUND)
                .untilAsserted(() -> assertThat(jobNames())
                        .containsExactlyInAnyOrder("again-" + first, "again-" + second, "again-" + third));
        assertThat(String.join(
                        " ",
                        operator.get(Job.class, "again-" + third)
                                .getSpec()
                                .getTemplate()
                                .getSpec()
                                .getContainers()
                                .get(0)
                                .getArgs()))
                .contains("--rate 50");
    }

    @Test
    void aRunWaitsForItsClusterThenStarts() {
        operator.create(benchmark("early", s -> {}));
        awaitStatus("early", s -> {
            assertThat(s.phase).isEqualTo(BenchmarkPhase.Pending);
            assertThat(s.message)
                    .isEqualTo("DhtCluster kv does not exist in namespace " + ns
                            + ": create it, or set spec.cluster to an existing one");
        });
        assertThat(jobNames()).isEmpty();
        readyCluster("kv", 1, false);
        var status = awaitStatus("early", s -> assertThat(s.message).startsWith("waiting for the load Job's pod"));
        assertThat(jobNames()).containsExactly("early-" + status.runId);
    }

    @Test
    void aFailedJobFailsTheRunWithItsOutputAndAnImpossibleSpecStartsNothing() {
        readyCluster("kv", 1, true);
        operator.create(benchmark("broken", s -> {}));
        String runId = awaitStatus("broken", s -> assertThat(s.runId).isNotNull()).runId;
        await().atMost(FUNCTIONAL_BOUND)
                .until(() -> client.batch()
                                .v1()
                                .jobs()
                                .inNamespace(ns)
                                .withName("broken-" + runId)
                                .get()
                        != null);
        jobs.start("broken-" + runId);
        jobs.fail("broken-" + runId, "bench runner: k6 not found\nexit 1");
        awaitStatus("broken", s -> {
            assertThat(s.phase).isEqualTo(BenchmarkPhase.Failed);
            assertThat(s.message)
                    .isEqualTo("the load Job failed (BackoffLimitExceeded: Job has reached the specified"
                            + " backoff limit); last output: bench runner: k6 not found | exit 1");
        });

        // Four 10s captures cannot fit in 20s tapes: refused before anything starts, with what to fix.
        var impossible = operator.get(DhtBenchmark.class, "broken");
        impossible.getSpec().duration = "20s";
        impossible.getSpec().profiler = new BenchmarkProfilerSpec();
        impossible.getSpec().profiler.events =
                List.of(ProfilerEvent.cpu, ProfilerEvent.alloc, ProfilerEvent.lock, ProfilerEvent.wall);
        operator.replace(impossible);
        awaitStatus("broken", s -> {
            assertThat(s.observedGeneration).isEqualTo(2L);
            assertThat(s.phase).isEqualTo(BenchmarkPhase.Failed);
            assertThat(s.runId).isNull();
            assertThat(s.message).contains("4 event(s) x 10s = 40s but spec.duration is 20s");
        });
        assertThat(jobNames()).containsExactly("broken-" + runId);
    }

    @Test
    void deletingTheBenchmarkRemovesItsJobsAndItsClaimUnlessRetained() {
        readyCluster("kv", 1, false);
        operator.create(benchmark("gone", s -> {}));
        operator.create(benchmark("kept", s -> {
            s.results = new ResultsSpec();
            s.results.retainOnDelete = true;
        }));
        await().atMost(FUNCTIONAL_BOUND)
                .untilAsserted(() -> assertThat(jobNames()).hasSize(2));
        assertThat(operator.get(PersistentVolumeClaim.class, "kept-results")
                        .getMetadata()
                        .getOwnerReferences())
                .isEmpty();

        operator.delete(operator.get(DhtBenchmark.class, "gone"));
        operator.delete(operator.get(DhtBenchmark.class, "kept"));
        var collector = new FakeGarbageCollector(client, ns);
        await().atMost(FUNCTIONAL_BOUND).untilAsserted(() -> {
            collector.collect();
            assertThat(jobNames()).isEmpty();
            assertThat(client.persistentVolumeClaims()
                            .inNamespace(ns)
                            .withLabel(BenchmarkNames.BENCHMARK_LABEL)
                            .list()
                            .getItems())
                    .filteredOn(c -> c.getMetadata().getDeletionTimestamp() == null)
                    .extracting(c -> c.getMetadata().getName())
                    .containsExactly("kept-results");
        });
    }

    // ---------------------------------------------------------------------------------------------

    void readyCluster(String name, int replicas, boolean profiler) {
        var cluster = new DhtCluster();
        cluster.getMetadata().setName(name);
        cluster.getMetadata().setNamespace(ns);
        cluster.setSpec(new DhtClusterSpec());
        cluster.getSpec().replicas = replicas;
        cluster.getSpec().profiler = new ProfilerSpec();
        cluster.getSpec().profiler.enabled = profiler;
        operator.create(cluster);
        waiting().untilAsserted(() -> {
            var status = operator.get(DhtCluster.class, name).getStatus();
            assertThat(status).isNotNull();
            assertThat(status.phase).isEqualTo(Phase.Ready);
        });
    }

    DhtBenchmark benchmark(String name, Consumer<DhtBenchmarkSpec> change) {
        var benchmark = new DhtBenchmark();
        benchmark.getMetadata().setName(name);
        benchmark.getMetadata().setNamespace(ns);
        var spec = new DhtBenchmarkSpec();
        spec.cluster = "kv";
        spec.tapes = List.of(Tape.PUT_UNIQUE);
        spec.rate = 100;
        spec.duration = "20s";
        change.accept(spec);
        benchmark.setSpec(spec);
        return benchmark;
    }

    List<String> jobNames() {
        return client.batch().v1().jobs().inNamespace(ns).list().getItems().stream()
                .filter(j -> j.getMetadata().getDeletionTimestamp() == null)
                .map(j -> j.getMetadata().getName())
                .toList();
    }

    DhtBenchmarkStatus awaitStatus(String name, Consumer<DhtBenchmarkStatus> check) {
        waiting().untilAsserted(() -> {
            var benchmark = operator.get(DhtBenchmark.class, name);
            assertThat(benchmark.getStatus()).as("status of " + name).isNotNull();
            check.accept(benchmark.getStatus());
        });
        return operator.get(DhtBenchmark.class, name).getStatus();
    }

    ConditionFactory waiting() {
        return await().atMost(FUNCTIONAL_BOUND).pollInterval(Duration.ofMillis(100));
    }
}
