package dev.dht.operator.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.api.v1alpha1.BenchmarkPhase;
import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.api.v1alpha1.DhtBenchmarkStatus;
import dev.dht.operator.api.v1alpha1.TapeResult;
import dev.dht.operator.benchmark.status.BenchmarkStatuses;
import dev.dht.operator.benchmark.status.Headline;
import dev.dht.operator.reconciler.StatusWrites;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which run is current, and its phase and figures from its Job: pure functions of what is observed. */
class BenchmarkStatusesTest {
    static final Instant NOW = Instant.parse("2026-11-25T16:00:00Z");
    static final String HEADLINE = "{\"tapes\": {\"put-unique\": {\"rps\": 199.84, \"p99_ms\": 3.21049, \"errors\": 0,"
            + " \"dropped\": 2, \"saturation_rps\": null}, \"get-uniform\": {\"rps\": 200.0, \"p99_ms\": 1.5, \"errors\": 3,"
            + " \"dropped\": 0}}, \"flamegraphs\": 4, \"problems\": [\"kv-1 alloc: node busy for 30s\"]}";

    static DhtBenchmark started(String runId) {
        var benchmark = Benchmarks.benchmark(s -> {});
        benchmark.setStatus(BenchmarkStatuses.startRun(benchmark, runId, NOW));
        return benchmark;
    }

    static Job job(String... conditions) {
        var builder = new JobBuilder()
                .withNewMetadata()
                .withName("smoke-r1")
                .endMetadata()
                .withNewStatus()
                .withStartTime("2026-11-25T16:00:05Z")
                .withActive(conditions.length == 0 ? 1 : 0)
                .endStatus();
        var job = builder.build();
        for (String type : conditions) {
            job.getStatus()
                    .getConditions()
                    .add(new JobConditionBuilder()
                            .withType(type)
                            .withStatus("True")
                            .withReason(type.equals("Failed") ? "DeadlineExceeded" : null)
                            .withMessage(type.equals("Failed") ? "Job was active longer than specified deadline" : null)
                            .withLastTransitionTime("2026-11-25T16:02:00Z")
                            .build());
        }
        if (java.util.List.of(conditions).contains("Complete")) {
            job.getStatus().setCompletionTime("2026-11-25T16:01:59Z");
        }
        return job;
    }

    @Test
    void aNewBenchmarkAsksForARunAndARerunAnnotationOrASpecChangeForAnother() {
        var benchmark = Benchmarks.benchmark(s -> {});
        assertThat(BenchmarkStatuses.newRunRequested(benchmark)).isTrue();
        benchmark.setStatus(BenchmarkStatuses.startRun(benchmark, "r1", NOW));
        assertThat(BenchmarkStatuses.newRunRequested(benchmark)).isFalse();

        benchmark.getMetadata().setAnnotations(Map.of(DhtBenchmark.RERUN_ANNOTATION, "again"));
        assertThat(BenchmarkStatuses.newRunRequested(benchmark)).isTrue();
        benchmark.setStatus(BenchmarkStatuses.startRun(benchmark, "r2", NOW));
        assertThat(benchmark.getStatus().observedRerun).isEqualTo("again");
        assertThat(BenchmarkStatuses.newRunRequested(benchmark)).isFalse();

        benchmark.getMetadata().setGeneration(2L);
        assertThat(BenchmarkStatuses.newRunRequested(benchmark)).isTrue();
    }

    @Test
    void aNewRunIsPendingAndPointsAtItsArtifacts() {
        var status = started("20261125-160000").getStatus();
        assertThat(status.phase).isEqualTo(BenchmarkPhase.Pending);
        assertThat(status.runId).isEqualTo("20261125-160000");
        assertThat(status.artifactPath).isEqualTo("smoke/20261125-160000");
        assertThat(status.resultsClaim).isEqualTo("smoke-results");
        assertThat(status.observedGeneration).isEqualTo(1L);
        assertThat(status.history).isEmpty();
    }

    @Test
    void theRunFollowsItsJob() {
        var current = started("r1").getStatus();
        assertThat(BenchmarkStatuses.fromJob(current, Optional.empty(), Optional.empty(), Optional.empty()).phase)
                .isEqualTo(BenchmarkPhase.Pending);

        var running = BenchmarkStatuses.fromJob(
                current,
                Optional.of(job()),
                Optional.empty(),
                Optional.of("no flamegraphs: DhtCluster kv has spec.profiler.enabled false"));
        assertThat(running.phase).isEqualTo(BenchmarkPhase.Running);
        assertThat(running.startTime).isEqualTo("2026-11-25T16:00:05Z");
        assertThat(running.message).contains("is running").contains("no flamegraphs");

        var done = BenchmarkStatuses.fromJob(
                current, Optional.of(job("SuccessCriteriaMet", "Complete")), Optional.of(HEADLINE), Optional.empty());
        assertThat(done.phase).isEqualTo(BenchmarkPhase.Succeeded);
        assertThat(done.endTime).isEqualTo("2026-11-25T16:01:59Z");
        assertThat(done.flamegraphs).isEqualTo(4);
        assertThat(done.tapes)
                .usingRecursiveFieldByFieldElementComparator()
                .containsExactly(
                        new TapeResult("put-unique", 199.8, 3.21, 0L, 2L, null),
                        new TapeResult("get-uniform", 200.0, 1.5, 3L, 0L, null));
        assertThat(done.message)
                .isEqualTo("2 tape(s) ran; 4 flamegraph(s) in smoke-results:/smoke/r1;"
                        + " 1 problem(s): kv-1 alloc: node busy for 30s");
        var again = BenchmarkStatuses.fromJob(
                current, Optional.of(job("SuccessCriteriaMet", "Complete")), Optional.of(HEADLINE), Optional.empty());
        assertThat(StatusWrites.same(again, done))
                .as("same observation, same status (no write):%n%s%n%s", again, done)
                .isTrue();
    }

    @Test
    void aFailedJobSaysWhyWithTheProgramsLastOutput() {
        var current = started("r1").getStatus();
        var failed = BenchmarkStatuses.fromJob(
                current,
                Optional.of(job("FailureTarget", "Failed")),
                Optional.of("Traceback (most recent call last):\n  ...\nRuntimeError: k6 exited with 107"),
                Optional.empty());
        assertThat(failed.phase).isEqualTo(BenchmarkPhase.Failed);
        assertThat(failed.endTime).isEqualTo("2026-11-25T16:02:00Z");
        assertThat(failed.message)
                .isEqualTo(
                        "the load Job failed (DeadlineExceeded: Job was active longer than specified"
                                + " deadline); last output: Traceback (most recent call last): | ... | RuntimeError: k6 exited with 107");
    }

    @Test
    void aCompletedJobWithoutItsSummaryIsAFailedRun() {
        var current = started("r1").getStatus();
        var status = BenchmarkStatuses.fromJob(
                current, Optional.of(job("SuccessCriteriaMet", "Complete")), Optional.empty(), Optional.empty());
        assertThat(status.phase).isEqualTo(BenchmarkPhase.Failed);
        assertThat(status.message).startsWith("the load Job completed but left no summary");
    }

    @Test
    void aNewRunMovesTheCurrentOneToTheHistoryAndKeepsFive() {
        var benchmark = started("r1");
        benchmark.setStatus(BenchmarkStatuses.fromJob(
                benchmark.getStatus(),
                Optional.of(job("SuccessCriteriaMet", "Complete")),
                Optional.of(HEADLINE),
                Optional.empty()));
        benchmark.getMetadata().setAnnotations(Map.of(DhtBenchmark.RERUN_ANNOTATION, "1"));
        benchmark.setStatus(BenchmarkStatuses.startRun(benchmark, "r2", NOW));
        var status = benchmark.getStatus();
        assertThat(status.runId).isEqualTo("r2");
        assertThat(status.tapes).isEmpty();
        assertThat(status.history).singleElement().satisfies(old -> {
            assertThat(old.runId).isEqualTo("r1");
            assertThat(old.phase).isEqualTo(BenchmarkPhase.Succeeded);
            assertThat(old.tapes).hasSize(2);
            assertThat(old.artifactPath).isEqualTo("smoke/r1");
        });

        // r2 is still running when r3 is asked for: it is superseded.
        benchmark.getMetadata().setAnnotations(Map.of(DhtBenchmark.RERUN_ANNOTATION, "2"));
        benchmark.setStatus(BenchmarkStatuses.startRun(benchmark, "r3", NOW));
        assertThat(benchmark.getStatus().history)
                .extracting(r -> r.runId + " " + r.phase + " " + r.message)
                .containsExactly(
                        "r2 Failed superseded by run r3 before it finished",
                        "r1 Succeeded " + status.history.get(0).message);
        for (int i = 4; i <= 9; i++) {
            benchmark.getMetadata().setAnnotations(Map.of(DhtBenchmark.RERUN_ANNOTATION, "" + i));
            benchmark.setStatus(BenchmarkStatuses.startRun(benchmark, "r" + i, NOW));
        }
        assertThat(benchmark.getStatus().history)
                .extracting(r -> r.runId)
                .containsExactly("r8", "r7", "r6", "r5", "r4");
        assertThat(BenchmarkStatuses.runIds(benchmark.getStatus())).containsExactly("r9", "r8", "r7", "r6", "r5", "r4");
    }

    @Test
    void aRefusedSpecAnswersTheRequestWithoutARun() {
        var benchmark = started("r1");
        benchmark.getMetadata().setGeneration(2L);
        DhtBenchmarkStatus refused = BenchmarkStatuses.refused(benchmark, "spec.rampTo is required", NOW);
        assertThat(refused.phase).isEqualTo(BenchmarkPhase.Failed);
        assertThat(refused.runId).isNull();
        assertThat(refused.observedGeneration).isEqualTo(2L);
        assertThat(refused.message).isEqualTo("spec.rampTo is required");
        assertThat(refused.history).extracting(r -> r.runId).containsExactly("r1");
    }

    @Test
    void aHeadlineIsOnlyWhatTheProgramWrote() {
        assertThat(Headline.parse("{\"tapes\": {}}"))
                .hasValueSatisfying(h -> assertThat(h.tapes()).isEmpty());
        assertThat(Headline.parse("Error: cannot connect")).isEmpty();
        assertThat(Headline.parse("{\"other\": 1}")).isEmpty();
        assertThat(Headline.parse("")).isEmpty();
    }
}
