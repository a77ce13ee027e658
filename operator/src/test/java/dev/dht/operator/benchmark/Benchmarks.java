package dev.dht.operator.benchmark;

import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.api.v1alpha1.DhtBenchmarkSpec;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.MemberStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.api.v1alpha1.ProfilerSpec;
import dev.dht.operator.api.v1alpha1.Tape;
import dev.dht.operator.benchmark.model.BenchmarkModel;
import java.util.List;
import java.util.function.Consumer;

/** Test benchmarks and target clusters: every case starts from the same base and changes one thing. */
public final class Benchmarks {
    public static final String RUNNER = "dht-loadrunner:test";

    private Benchmarks() {}

    public static DhtBenchmark benchmark(Consumer<DhtBenchmarkSpec> change) {
        var benchmark = new DhtBenchmark();
        benchmark.getMetadata().setName("smoke");
        benchmark.getMetadata().setNamespace("prod");
        benchmark.getMetadata().setUid("5a4b-uid");
        benchmark.getMetadata().setGeneration(1L);
        var spec = new DhtBenchmarkSpec();
        spec.cluster = "kv";
        spec.tapes = List.of(Tape.PUT_UNIQUE, Tape.GET_UNIFORM);
        spec.rate = 200;
        spec.duration = "30s";
        change.accept(spec);
        benchmark.setSpec(spec);
        return benchmark;
    }

    public static BenchmarkModel model(Consumer<DhtBenchmarkSpec> change) {
        return BenchmarkModel.from(benchmark(change), RUNNER);
    }

    /** A Ready cluster "kv" of {@code members} members, with or without the profiler. */
    public static DhtCluster readyCluster(int members, boolean profiler) {
        var cluster = new DhtCluster();
        cluster.getMetadata().setName("kv");
        cluster.getMetadata().setNamespace("prod");
        cluster.getMetadata().setGeneration(4L);
        cluster.setSpec(new DhtClusterSpec());
        cluster.getSpec().profiler = new ProfilerSpec();
        cluster.getSpec().profiler.enabled = profiler;
        var status = new DhtClusterStatus();
        status.phase = Phase.Ready;
        status.observedGeneration = 4L;
        for (int i = 0; i < members; i++) {
            status.members.add(new MemberStatus(
                    "kv-" + i, "http://kv-" + i + ".kv-headless.prod.svc.cluster.local:8080", MemberState.Up, true));
        }
        cluster.setStatus(status);
        return cluster;
    }
}
