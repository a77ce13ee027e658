package dev.dht.operator.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.operator.api.v1alpha1.BenchmarkProfilerSpec;
import dev.dht.operator.api.v1alpha1.DhtBenchmarkSpec;
import dev.dht.operator.api.v1alpha1.LoadEngine;
import dev.dht.operator.api.v1alpha1.LoadProfile;
import dev.dht.operator.api.v1alpha1.ProfilerEvent;
import dev.dht.operator.api.v1alpha1.Tape;
import dev.dht.operator.api.v1alpha1.TargetMode;
import dev.dht.operator.benchmark.model.RunIds;
import dev.dht.operator.model.InvalidSpecException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The benchmark spec with its defaults and the checks the schema cannot make. */
class BenchmarkModelTest {
    @Test
    void anEmptySpecButTheClusterGetsTheSchemaDefaults() {
        var model = Benchmarks.model(s -> {
            s.tapes = null;
            s.rate = null;
            s.duration = null;
        });
        assertThat(model.cluster()).isEqualTo("kv");
        assertThat(model.tapes()).containsExactly(Tape.values());
        assertThat(model.profile()).isEqualTo(LoadProfile.CONST);
        assertThat(model.engine()).isEqualTo(LoadEngine.K6);
        assertThat(model.rate()).isEqualTo(1000);
        assertThat(model.duration()).isEqualTo(Duration.ofSeconds(60));
        assertThat(model.prefill()).isEqualTo(10000);
        assertThat(model.valueSize()).isEqualTo(100);
        assertThat(model.target()).isEqualTo(TargetMode.SERVICE);
        assertThat(model.profilerEvents()).as("unset: the cluster's events").isEmpty();
        assertThat(model.capture()).isEqualTo(Duration.ofSeconds(10));
        assertThat(model.resultsSize()).isEqualTo("1Gi");
        assertThat(model.retainResults()).isFalse();
        assertThat(model.image()).isEqualTo(Benchmarks.RUNNER);
        assertThat(model.replicas()).isEmpty();
    }

    static Stream<Arguments> specsThatCannotRun() {
        return Stream.of(
                Arguments.of(
                        "captures longer than a tape",
                        (Consumer<DhtBenchmarkSpec>) s -> {
                            s.duration = "20s";
                            s.profiler = new BenchmarkProfilerSpec();
                            s.profiler.events = List.of(ProfilerEvent.cpu, ProfilerEvent.alloc, ProfilerEvent.lock);
                            s.profiler.duration = "10s";
                        },
                        "3 event(s) x 10s = 30s but spec.duration is 20s: raise spec.duration, shorten spec.profiler.duration"),
                Arguments.of(
                        "ramp without its end",
                        (Consumer<DhtBenchmarkSpec>) s -> s.profile = LoadProfile.RAMP,
                        "spec.rampTo is required with profile ramp"),
                Arguments.of(
                        "ack above from",
                        (Consumer<DhtBenchmarkSpec>) s -> s.replicas = "3/2",
                        "spec.replicas is '3/2' but must be ack/from with 1 <= ack <= from"),
                Arguments.of(
                        "a duration in days",
                        (Consumer<DhtBenchmarkSpec>) s -> s.duration = "1d",
                        "spec.duration is '1d' but must be whole seconds, minutes or hours"),
                Arguments.of(
                        "a tape twice",
                        (Consumer<DhtBenchmarkSpec>) s -> s.tapes = List.of(Tape.MIXED, Tape.MIXED),
                        "spec.tapes lists a tape twice"),
                Arguments.of(
                        "no cluster", (Consumer<DhtBenchmarkSpec>) s -> s.cluster = " ", "spec.cluster is required"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specsThatCannotRun")
    void aSpecThatCannotRunSaysWhatToFix(String why, Consumer<DhtBenchmarkSpec> change, String message) {
        assertThatThrownBy(() -> Benchmarks.model(change))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining(message);
    }

    @Test
    void explicitSettingsWin() {
        var model = Benchmarks.model(s -> {
            s.profile = LoadProfile.RAMP;
            s.rampTo = 5000;
            s.replicas = "2/3";
            s.target = TargetMode.MEMBERS;
            s.image = "registry.example/dht-loadrunner:dev";
            s.engine = LoadEngine.OHA;
            s.profiler = new BenchmarkProfilerSpec();
            s.profiler.events = List.of();
        });
        assertThat(model.rampTo()).contains(5000);
        assertThat(model.engine()).isEqualTo(LoadEngine.OHA);
        assertThat(model.replicas()).contains("2/3");
        assertThat(model.target()).isEqualTo(TargetMode.MEMBERS);
        assertThat(model.image()).isEqualTo("registry.example/dht-loadrunner:dev");
        assertThat(model.profilerEvents()).isEqualTo(Optional.of(List.of()));
    }

    @Test
    void runIdsAreTheUtcStartSecondAndNeverRepeat() {
        var now = Instant.parse("2026-11-25T16:01:02.750Z");
        assertThat(RunIds.next(now, List.of())).isEqualTo("20261125-160102");
        assertThat(RunIds.next(now, List.of("20261125-160102"))).isEqualTo("20261125-160102-2");
        assertThat(RunIds.next(now, List.of("20261125-160102", "20261125-160102-2")))
                .isEqualTo("20261125-160102-3");
    }
}
