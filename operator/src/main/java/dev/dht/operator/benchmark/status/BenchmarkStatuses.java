package dev.dht.operator.benchmark.status;

import dev.dht.operator.api.v1alpha1.BenchmarkPhase;
import dev.dht.operator.api.v1alpha1.BenchmarkRun;
import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.api.v1alpha1.DhtBenchmarkStatus;
import dev.dht.operator.benchmark.model.BenchmarkNames;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A benchmark's status as pure functions of what is observed: which run is current, its phase from its Job's
 * status, its figures from the headline the Job left. Equal observations give an equal status (no write).
 */
public final class BenchmarkStatuses {
    /** Earlier runs kept in status.history. */
    public static final int HISTORY = 5;

    static final int MESSAGE_LIMIT = 600;

    private BenchmarkStatuses() {}

    /** The rerun annotation's value, or "" when absent. */
    public static String rerunOf(DhtBenchmark benchmark) {
        var annotations = benchmark.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(DhtBenchmark.RERUN_ANNOTATION);
        return value == null ? "" : value;
    }

    /** The benchmark asks for a run its status does not describe: a first run, a spec change or a new rerun value. */
    public static boolean newRunRequested(DhtBenchmark benchmark) {
        var status = benchmark.getStatus();
        return status == null
                || status.observedGeneration == null
                || !Objects.equals(
                        status.observedGeneration, benchmark.getMetadata().getGeneration())
                || !Objects.equals(status.observedRerun == null ? "" : status.observedRerun, rerunOf(benchmark));
    }

    /** Ids of every run in the status (current and history): a new run id must differ from them. */
    public static List<String> runIds(DhtBenchmarkStatus status) {
        var ids = new ArrayList<String>();
        if (status != null) {
            if (status.runId != null) {
                ids.add(status.runId);
            }
            if (status.history != null) {
                status.history.stream()
                        .map(r -> r.runId)
                        .filter(Objects::nonNull)
                        .forEach(ids::add);
            }
        }
        return ids;
    }

    /**
     * The status of a new run, Pending: the current run (if any) moves to the history, marked Failed when it had not
     * finished (its Job is stopped: two loads at once would falsify both).
     */
    public static DhtBenchmarkStatus startRun(DhtBenchmark benchmark, String runId, Instant now) {
        var status = newRequest(benchmark, runId, now);
        status.runId = runId;
        status.phase = BenchmarkPhase.Pending;
        status.message = "starting run " + runId;
        status.artifactPath =
                BenchmarkNames.artifactPath(benchmark.getMetadata().getName(), runId);
        return status;
    }

    /** The spec cannot run: the request is answered with Failed and no run (nothing is started). */
    public static DhtBenchmarkStatus refused(DhtBenchmark benchmark, String message, Instant now) {
        DhtBenchmarkStatus status;
        if (newRunRequested(benchmark)) {
            status = newRequest(benchmark, null, now);
        } else {
            status = benchmark.getStatus().copyStatus();
        }
        status.phase = BenchmarkPhase.Failed;
        status.message = limit(message);
        return status;
    }

    private static DhtBenchmarkStatus newRequest(DhtBenchmark benchmark, String runId, Instant now) {
        var previous = benchmark.getStatus();
        var status = new DhtBenchmarkStatus();
        status.observedGeneration = benchmark.getMetadata().getGeneration();
        status.observedRerun = rerunOf(benchmark);
        status.resultsClaim =
                BenchmarkNames.resultsClaim(benchmark.getMetadata().getName());
        var history = new ArrayList<BenchmarkRun>();
        if (previous != null) {
            if (previous.runId != null) {
                var run = previous.currentRun();
                if (!finished(run.phase)) {
                    run.phase = BenchmarkPhase.Failed;
                    run.message = runId != null
                            ? "superseded by run " + runId + " before it finished"
                            : "superseded by a spec change before it finished";
                    run.endTime = time(now);
                }
                history.add(run);
            }
            if (previous.history != null) {
                history.addAll(previous.history);
            }
        }
        status.history = new ArrayList<>(history.subList(0, Math.min(HISTORY, history.size())));
        return status;
    }

    /** The current run is waiting for its target (the run has not started a Job). */
    public static DhtBenchmarkStatus waiting(DhtBenchmarkStatus current, String why) {
        var status = current.copyStatus();
        status.phase = BenchmarkPhase.Pending;
        status.message = limit(why);
        return status;
    }

    /**
     * The current run as its Job shows it.
     *
     * @param terminationMessage the Job's pod's termination message, once the Job finished
     * @param note what the run does not do (no profiler), added to the message
     */
    public static DhtBenchmarkStatus fromJob(
            DhtBenchmarkStatus current, Optional<Job> job, Optional<String> terminationMessage, Optional<String> note) {
        var status = current.copyStatus();
        if (job.isEmpty()) {
            status.phase = BenchmarkPhase.Pending;
            status.message = join("creating the load Job", note.orElse(null));
            return status;
        }
        var jobStatus = job.get().getStatus();
        status.startTime = jobStatus != null ? jobStatus.getStartTime() : null;
        var complete = condition(job.get(), "Complete");
        var failed = condition(job.get(), "Failed");
        var headline = terminationMessage.flatMap(Headline::parse);
        if (complete.isPresent() || failed.isPresent()) {
            status.endTime = complete.isPresent() && jobStatus.getCompletionTime() != null
                    ? jobStatus.getCompletionTime()
                    : complete.or(() -> failed)
                            .map(JobCondition::getLastTransitionTime)
                            .orElse(null);
            headline.ifPresent(h -> {
                status.tapes = h.tapes();
                status.flamegraphs = h.flamegraphs();
            });
            String problems = headline.map(h -> h.problems().isEmpty()
                            ? null
                            : h.problems().size() + " problem(s): " + String.join("; ", h.problems()))
                    .orElse(null);
            if (failed.isPresent()) {
                var c = failed.get();
                status.phase = BenchmarkPhase.Failed;
                String output = headline.isPresent()
                        ? null
                        : terminationMessage
                                .filter(m -> !m.isBlank())
                                .map(m -> "last output: " + tail(m))
                                .orElse(null);
                status.message = limit(join(
                        "the load Job failed (" + c.getReason()
                                + (c.getMessage() != null && !c.getMessage().isBlank() ? ": " + c.getMessage() : "")
                                + ")",
                        output,
                        problems,
                        note.orElse(null)));
            } else if (headline.isEmpty()) {
                status.phase = BenchmarkPhase.Failed;
                status.message = limit(join(
                        "the load Job completed but left no summary in its termination message",
                        terminationMessage
                                .filter(m -> !m.isBlank())
                                .map(m -> "it said: " + tail(m))
                                .orElse(null)));
            } else {
                status.phase = BenchmarkPhase.Succeeded;
                status.message = limit(join(
                        headline.get().tapes().size() + " tape(s) ran; " + status.flamegraphs + " flamegraph(s) in "
                                + status.resultsClaim + ":/" + status.artifactPath,
                        problems,
                        note.orElse(null)));
            }
            return status;
        }
        boolean active = jobStatus != null && jobStatus.getActive() != null && jobStatus.getActive() > 0;
        if (active && jobStatus.getStartTime() != null) {
            status.phase = BenchmarkPhase.Running;
            status.message =
                    join("the load Job " + job.get().getMetadata().getName() + " is running", note.orElse(null));
        } else {
            status.phase = BenchmarkPhase.Pending;
            status.message = join("waiting for the load Job's pod to start", note.orElse(null));
        }
        return status;
    }

    public static boolean finished(BenchmarkPhase phase) {
        return phase == BenchmarkPhase.Succeeded || phase == BenchmarkPhase.Failed;
    }

    private static Optional<JobCondition> condition(Job job, String type) {
        var status = job.getStatus();
        if (status == null || status.getConditions() == null) {
            return Optional.empty();
        }
        return status.getConditions().stream()
                .filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus()))
                .findFirst();
    }

    static String time(Instant now) {
        return now.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static String join(String... parts) {
        var kept = new ArrayList<String>();
        for (String p : parts) {
            if (p != null && !p.isBlank()) {
                kept.add(p);
            }
        }
        return String.join("; ", kept);
    }

    private static String tail(String text) {
        String oneLine = text.strip().replaceAll("\\s*\\n\\s*", " | ");
        return oneLine.length() <= 300 ? oneLine : "..." + oneLine.substring(oneLine.length() - 300);
    }

    private static String limit(String message) {
        return message == null || message.length() <= MESSAGE_LIMIT
                ? message
                : message.substring(0, MESSAGE_LIMIT - 3) + "...";
    }
}
