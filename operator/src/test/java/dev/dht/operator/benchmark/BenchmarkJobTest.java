package dev.dht.operator.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.operator.api.v1alpha1.BenchmarkProfilerSpec;
import dev.dht.operator.api.v1alpha1.LoadEngine;
import dev.dht.operator.api.v1alpha1.LoadProfile;
import dev.dht.operator.api.v1alpha1.ProfilerEvent;
import dev.dht.operator.api.v1alpha1.ResultsSpec;
import dev.dht.operator.api.v1alpha1.TargetMode;
import dev.dht.operator.benchmark.model.BenchmarkJob;
import dev.dht.operator.benchmark.model.BenchmarkNames;
import dev.dht.operator.benchmark.model.BenchmarkTarget;
import dev.dht.operator.benchmark.model.ResultsVolume;
import dev.dht.operator.model.InvalidSpecException;
import dev.dht.operator.model.Labels;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The run's Job and the results claim, built from specs and a cluster without any API server. */
class BenchmarkJobTest {
    static final String DOMAIN = "cluster.local";

    static BenchmarkTarget target(
            dev.dht.operator.benchmark.model.BenchmarkModel model, dev.dht.operator.api.v1alpha1.DhtCluster cluster) {
        return BenchmarkTarget.of(model, Optional.of(cluster), DOMAIN).target().orElseThrow();
    }

    @Test
    void theJobRunsTheBenchProgramOnceWithTheContractsArguments() {
        var benchmark = Benchmarks.benchmark(s -> {
            s.profiler = new BenchmarkProfilerSpec();
            s.profiler.events = List.of(ProfilerEvent.cpu, ProfilerEvent.alloc);
            s.profiler.duration = "5s";
            s.replicas = "2/3";
        });
        var model = dev.dht.operator.benchmark.model.BenchmarkModel.from(benchmark, Benchmarks.RUNNER);
        var job =
                BenchmarkJob.job(benchmark, model, target(model, Benchmarks.readyCluster(2, true)), "20261125-160102");

        assertThat(job.getMetadata().getName()).isEqualTo("smoke-20261125-160102");
        assertThat(job.getMetadata().getNamespace()).isEqualTo("prod");
        assertThat(job.getMetadata().getLabels())
                .containsEntry(Labels.MANAGED_BY, Labels.OPERATOR)
                .containsEntry(BenchmarkNames.BENCHMARK_LABEL, "smoke")
                .containsEntry(BenchmarkNames.RUN_LABEL, "20261125-160102");
        assertThat(job.getMetadata().getOwnerReferences()).singleElement().satisfies(ref -> {
            assertThat(ref.getKind()).isEqualTo("DhtBenchmark");
            assertThat(ref.getUid()).isEqualTo("5a4b-uid");
            assertThat(ref.getController()).isTrue();
        });
        var spec = job.getSpec();
        assertThat(spec.getBackoffLimit())
                .as("one attempt: a retry would mix two attempts' files")
                .isZero();
        assertThat(spec.getActiveDeadlineSeconds())
                .as("2 tapes x (30s + 120s + 10000 keys / 200/s) + 300s")
                .isEqualTo(2 * (30 + 120 + 50) + 300);
        var podMeta = spec.getTemplate().getMetadata();
        assertThat(podMeta.getLabels())
                .containsEntry(BenchmarkNames.RUN_LABEL, "20261125-160102")
                .as("not a managed pod: the DhtCluster reconciler maps those to clusters")
                .doesNotContainKey(Labels.MANAGED_BY);
        var pod = spec.getTemplate().getSpec();
        assertThat(pod.getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getFsGroup()).isEqualTo(10001L);
        var runner = pod.getContainers().get(0);
        assertThat(runner.getImage()).isEqualTo(Benchmarks.RUNNER);
        assertThat(runner.getCommand()).containsExactly("python3", "/opt/dht/py/benchjob.py");
        assertThat(runner.getArgs())
                .containsExactly(
                        "--benchmark", "smoke",
                        "--run-id", "20261125-160102",
                        "--out", "/results/smoke/20261125-160102",
                        "--tapes", "put-unique,get-uniform",
                        "--engine", "k6",
                        "--profile", "const",
                        "--rate", "200",
                        "--duration", "30s",
                        "--replicas", "2/3",
                        "--prefill", "10000",
                        "--value-size", "100",
                        "--targets", "http://kv.prod.svc.cluster.local:8080",
                        "--profiler", "kv-0=http://kv-0.kv-headless.prod.svc.cluster.local:8079",
                        "--profiler", "kv-1=http://kv-1.kv-headless.prod.svc.cluster.local:8079",
                        "--events", "cpu,alloc",
                        "--capture", "5s",
                        "--termination-log", "/dev/termination-log");
        assertThat(runner.getTerminationMessagePath()).isEqualTo("/dev/termination-log");
        assertThat(runner.getTerminationMessagePolicy()).isEqualTo("FallbackToLogsOnError");
        assertThat(runner.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(runner.getResources().getLimits()).containsKey("memory").doesNotContainKey("cpu");
        assertThat(runner.getVolumeMounts())
                .extracting(m -> m.getName() + ":" + m.getMountPath())
                .containsExactly("results:/results", "tmp:/tmp");
        assertThat(pod.getVolumes())
                .anySatisfy(v ->
                        assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("smoke-results"));
    }

    @Test
    void rampAndEveryMemberTargets() {
        var model = Benchmarks.model(s -> {
            s.profile = LoadProfile.RAMP;
            s.rampTo = 8000;
            s.target = TargetMode.MEMBERS;
            s.engine = LoadEngine.OHA;
        });
        var args = BenchmarkJob.args(model, target(model, Benchmarks.readyCluster(3, false)), "r1");
        assertThat(String.join(" ", args))
                .contains("--engine oha --profile ramp --ramp-to 8000 --duration 30s")
                .doesNotContain("--rate")
                .contains(
                        "--targets http://kv-0.kv-headless.prod.svc.cluster.local:8080,"
                                + "http://kv-1.kv-headless.prod.svc.cluster.local:8080,http://kv-2.kv-headless.prod.svc.cluster.local:8080")
                .as("no profiler on the cluster: no captures")
                .doesNotContain("--profiler")
                .doesNotContain("--events");
    }

    @Test
    void withoutTheClustersProfilerTheRunSaysThereWillBeNoFlamegraphs() {
        var model = Benchmarks.model(s -> {});
        var target = target(model, Benchmarks.readyCluster(3, false));
        assertThat(target.profilers()).isEmpty();
        assertThat(target.note())
                .hasValueSatisfying(
                        n -> assertThat(n).contains("no flamegraphs: DhtCluster kv has spec.profiler.enabled false"));
    }

    @Test
    void theClustersEventsAreTheDefaultAndMustFitTheTapeToo() {
        var cluster = Benchmarks.readyCluster(1, true);
        cluster.getSpec().profiler.events =
                List.of(ProfilerEvent.cpu, ProfilerEvent.wall, ProfilerEvent.lock, ProfilerEvent.alloc);
        var model = Benchmarks.model(s -> s.duration = "60s");
        assertThat(target(model, cluster).events())
                .containsExactly(ProfilerEvent.cpu, ProfilerEvent.wall, ProfilerEvent.lock, ProfilerEvent.alloc);
        var shortTapes = Benchmarks.model(s -> s.duration = "30s");
        assertThatThrownBy(() -> target(shortTapes, cluster))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("4 event(s) x 10s = 40s but spec.duration is 30s");
    }

    @Test
    void aRunWaitsForAReadyClusterAndSaysWhy() {
        var model = Benchmarks.model(s -> {});
        assertThat(BenchmarkTarget.of(model, Optional.empty(), DOMAIN).waitingFor())
                .isEqualTo(
                        "DhtCluster kv does not exist in namespace prod: create it, or set spec.cluster to an existing one");
        var scaling = Benchmarks.readyCluster(3, true);
        scaling.getStatus().phase = dev.dht.operator.api.v1alpha1.Phase.Scaling;
        assertThat(BenchmarkTarget.of(model, Optional.of(scaling), DOMAIN).waitingFor())
                .isEqualTo("DhtCluster kv is Scaling: a run starts when it is Ready");
        var stale = Benchmarks.readyCluster(3, true);
        stale.getMetadata().setGeneration(5L);
        assertThat(BenchmarkTarget.of(model, Optional.of(stale), DOMAIN).target())
                .as("a status of an older generation does not count")
                .isEmpty();
    }

    @Test
    void theResultsClaimIsOwnedUnlessRetained() {
        var benchmark = Benchmarks.benchmark(s -> {
            s.results = new ResultsSpec();
            s.results.size = "5Gi";
            s.results.storageClassName = "fast";
        });
        var claim = ResultsVolume.claim(
                benchmark, dev.dht.operator.benchmark.model.BenchmarkModel.from(benchmark, Benchmarks.RUNNER));
        assertThat(claim.getMetadata().getName()).isEqualTo("smoke-results");
        assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
        assertThat(claim.getSpec().getResources().getRequests().get("storage").toString())
                .isEqualTo("5Gi");
        assertThat(claim.getSpec().getStorageClassName()).isEqualTo("fast");
        assertThat(claim.getMetadata().getOwnerReferences()).hasSize(1);
        assertThat(claim.getMetadata().getLabels()).containsEntry(BenchmarkNames.BENCHMARK_LABEL, "smoke");

        var retained = Benchmarks.benchmark(s -> {
            s.results = new ResultsSpec();
            s.results.retainOnDelete = true;
        });
        var kept = ResultsVolume.claim(
                retained, dev.dht.operator.benchmark.model.BenchmarkModel.from(retained, Benchmarks.RUNNER));
        assertThat(kept.getMetadata().getOwnerReferences()).isEmpty();
        assertThat(kept.getSpec().getStorageClassName())
                .as("the cluster's default class")
                .isNull();
    }

    @Test
    void theJobReadsTheClustersTokensFromItsSecretWhenTheClusterRequiresThem() {
        var model =
                dev.dht.operator.benchmark.model.BenchmarkModel.from(Benchmarks.benchmark(s -> {}), Benchmarks.RUNNER);
        var withProfiler = BenchmarkJob.job(
                        Benchmarks.benchmark(s -> {}), model, target(model, Benchmarks.readyCluster(2, true)), "r1")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0);
        assertThat(withProfiler.getEnv())
                .extracting(e ->
                        e.getName() + "=" + e.getValueFrom().getSecretKeyRef().getName() + "/"
                                + e.getValueFrom().getSecretKeyRef().getKey())
                .containsExactly("DHT_TOKEN=kv-auth/read-write", "DHT_ADMIN_TOKEN=kv-auth/admin");
        var noProfiler = BenchmarkJob.job(
                        Benchmarks.benchmark(s -> {}), model, target(model, Benchmarks.readyCluster(2, false)), "r1")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0);
        assertThat(noProfiler.getEnv()).extracting(e -> e.getName()).containsExactly("DHT_TOKEN");
        var open = Benchmarks.readyCluster(2, true);
        open.getSpec().auth = new dev.dht.operator.api.v1alpha1.AuthSpec();
        open.getSpec().auth.enabled = false;
        assertThat(BenchmarkJob.job(Benchmarks.benchmark(s -> {}), model, target(model, open), "r1")
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getEnv())
                .isEmpty();
    }

    @Test
    void againstAClusterWhoseClientPortSpeaksTlsTheJobTrustsItsCaAndPresentsTheBenchmarkCertificate() {
        var model =
                dev.dht.operator.benchmark.model.BenchmarkModel.from(Benchmarks.benchmark(s -> {}), Benchmarks.RUNNER);
        var cluster = Benchmarks.readyCluster(2, true);
        cluster.getStatus().tls = new dev.dht.operator.api.v1alpha1.TlsStatus();
        cluster.getStatus().tls.client = new dev.dht.operator.api.v1alpha1.ClientTlsStatus();
        cluster.getStatus().tls.client.enabled = true;
        cluster.getStatus().tls.client.clientAuth = dev.dht.operator.api.v1alpha1.ClientAuthMode.Optional;
        var target = target(model, cluster);
        assertThat(target.loadUrls()).containsExactly("https://kv.prod.svc.cluster.local:8080");
        assertThat(target.profilers().values())
                .allSatisfy(url -> assertThat(url).startsWith("https://"));
        var pod = BenchmarkJob.job(Benchmarks.benchmark(s -> {}), model, target, "r1")
                .getSpec()
                .getTemplate()
                .getSpec();
        var runner = pod.getContainers().get(0);
        assertThat(runner.getEnv())
                .filteredOn(e -> e.getValue() != null)
                .extracting(e -> e.getName() + "=" + e.getValue())
                .containsExactly(
                        "DHT_CA=/etc/dht/client-ca/ca.crt",
                        "DHT_CLIENT_CERT=/etc/dht/client/tls.crt",
                        "DHT_CLIENT_KEY=/etc/dht/client/tls.key");
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getConfigMap() != null)
                .singleElement()
                .satisfies(v -> assertThat(v.getConfigMap().getName()).isEqualTo("kv-client-ca.crt"));
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getSecret() != null)
                .singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("kv-benchmark-client-tls"));
        assertThat(runner.getVolumeMounts())
                .extracting(m -> m.getMountPath())
                .contains("/etc/dht/client-ca", "/etc/dht/client");
        // tokens only (clientAuth None): the CA, no certificate
        cluster.getStatus().tls.client.clientAuth = dev.dht.operator.api.v1alpha1.ClientAuthMode.None;
        var tokensOnly = BenchmarkJob.job(Benchmarks.benchmark(s -> {}), model, target(model, cluster), "r1")
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(tokensOnly.getContainers().get(0).getEnv())
                .extracting(e -> e.getName())
                .contains("DHT_CA")
                .doesNotContain("DHT_CLIENT_CERT");
        // a cluster whose status says nothing of client TLS (plaintext): none of it
        cluster.getStatus().tls = null;
        var plain = BenchmarkJob.job(Benchmarks.benchmark(s -> {}), model, target(model, cluster), "r1")
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(plain.getContainers().get(0).getEnv())
                .extracting(e -> e.getName())
                .doesNotContain("DHT_CA");
        assertThat(target(model, cluster).loadUrls())
                .allSatisfy(url -> assertThat(url).startsWith("http://"));
    }
}
