package dev.dht.operator.benchmark.reconciler;

import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.api.v1alpha1.DhtBenchmarkStatus;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.benchmark.model.BenchmarkJob;
import dev.dht.operator.benchmark.model.BenchmarkModel;
import dev.dht.operator.benchmark.model.BenchmarkNames;
import dev.dht.operator.benchmark.model.BenchmarkTarget;
import dev.dht.operator.benchmark.model.ResultsVolume;
import dev.dht.operator.benchmark.model.RunIds;
import dev.dht.operator.benchmark.status.BenchmarkStatuses;
import dev.dht.operator.model.InvalidSpecException;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Platform;
import dev.dht.operator.reconciler.DhtClusterReconciler;
import dev.dht.operator.reconciler.Secondaries;
import dev.dht.operator.reconciler.StatusWrites;
import dev.dht.operator.reconciler.WriteMetrics;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a DhtBenchmark: one run per request (the first reconcile, a spec change, a new value of the rerun
 * annotation). A new run gets an id and a Pending status first (so a restarted operator continues it instead of
 * starting another), stops the previous run's Job if it still runs, then waits for the target cluster to be Ready,
 * creates the results claim (once) and the run's Job (once: a Job's pod template cannot change), and follows the
 * Job: Running, then Succeeded or Failed with the figures from the pod's termination message. A finished run is
 * left alone; its Job and pod stay until the benchmark is deleted (logs for a look), its files in the results
 * volume for ever (or until the claim goes).
 *
 * <p>Annotations do not change an object's generation, so the reconciler gets every event on the benchmark
 * (generationAwareEventProcessing off); a reconcile with nothing new writes nothing.
 */
@ControllerConfiguration(
        name = DhtBenchmarkReconciler.NAME,
        fieldManager = DhtBenchmarkReconciler.FIELD_MANAGER,
        generationAwareEventProcessing = false)
public class DhtBenchmarkReconciler implements Reconciler<DhtBenchmark> {
    public static final String NAME = "dhtbenchmark";
    static final String FIELD_MANAGER = "dht-operator";
    /** Annotation on a run's Job: what the run does without (no profiler), repeated in the status message. */
    static final String NOTE_ANNOTATION = "dht.dev/benchmark-note";
    /** How often a run waiting for its cluster looks again (the cluster's events do not reach this reconciler). */
    static final Duration WAIT_FOR_CLUSTER = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(DhtBenchmarkReconciler.class);

    private final Platform platform;
    private final Clock clock;
    private final WriteMetrics metrics;
    private InformerEventSource<Job, DhtBenchmark> jobs;
    private InformerEventSource<PersistentVolumeClaim, DhtBenchmark> claims;

    public DhtBenchmarkReconciler(Platform platform, Clock clock, WriteMetrics metrics) {
        this.platform = platform;
        this.clock = clock;
        this.metrics = metrics;
    }

    @Override
    public List<EventSource<?, DhtBenchmark>> prepareEventSources(EventSourceContext<DhtBenchmark> context) {
        // Both map back by the benchmark label: a retained results claim has no owner reference.
        jobs = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(Job.class, DhtBenchmark.class)
                        .withLabelSelector(Labels.MANAGED_SELECTOR + "," + BenchmarkNames.BENCHMARK_LABEL)
                        .withSecondaryToPrimaryMapper(DhtBenchmarkReconciler::byBenchmarkLabel)
                        .build(),
                context);
        claims = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(PersistentVolumeClaim.class, DhtBenchmark.class)
                        .withLabelSelector(Labels.MANAGED_SELECTOR + "," + BenchmarkNames.BENCHMARK_LABEL)
                        .withSecondaryToPrimaryMapper(DhtBenchmarkReconciler::byBenchmarkLabel)
                        .build(),
                context);
        return List.of(jobs, claims);
    }

    private static Set<ResourceID> byBenchmarkLabel(HasMetadata object) {
        var labels = object.getMetadata().getLabels();
        String name = labels == null ? null : labels.get(BenchmarkNames.BENCHMARK_LABEL);
        return name == null
                ? Set.of()
                : Set.of(new ResourceID(name, object.getMetadata().getNamespace()));
    }

    @Override
    public UpdateControl<DhtBenchmark> reconcile(DhtBenchmark benchmark, Context<DhtBenchmark> context) {
        var client = context.getClient();
        var now = clock.instant();
        if (BenchmarkStatuses.newRunRequested(benchmark)) {
            BenchmarkModel.from(benchmark, platform.runnerImage()); // a spec that cannot run starts nothing
            benchmark = settleCurrentRun(client, benchmark);
            stopUnfinishedRun(client, benchmark);
            String runId = RunIds.next(now, BenchmarkStatuses.runIds(benchmark.getStatus()));
            benchmark = writeStatus(benchmark, BenchmarkStatuses.startRun(benchmark, runId, now), context);
            log.info(
                    "benchmark {}/{}: run {} requested",
                    benchmark.getMetadata().getNamespace(),
                    benchmark.getMetadata().getName(),
                    runId);
        }
        var status = benchmark.getStatus();
        if (status.runId == null || BenchmarkStatuses.finished(status.phase)) {
            return UpdateControl.noUpdate(); // refused, or done: nothing to do until the next request
        }
        var model = BenchmarkModel.from(benchmark, platform.runnerImage());
        String ns = model.namespace();
        if (Secondaries.named(context, PersistentVolumeClaim.class, BenchmarkNames.resultsClaim(model.name()))
                .isEmpty()) {
            create(client, ResultsVolume.claim(benchmark, model), claims);
        }
        var job = Secondaries.named(context, Job.class, BenchmarkNames.job(model.name(), status.runId));
        if (job.isEmpty()) {
            var cluster = Optional.ofNullable(client.resources(DhtCluster.class)
                    .inNamespace(ns)
                    .withName(model.cluster())
                    .get());
            var readiness = BenchmarkTarget.of(model, cluster, platform.clusterDomain());
            if (readiness.target().isEmpty()) {
                writeStatus(benchmark, BenchmarkStatuses.waiting(status, readiness.waitingFor()), context);
                return UpdateControl.<DhtBenchmark>noUpdate().rescheduleAfter(WAIT_FOR_CLUSTER);
            }
            var target = readiness.target().get();
            var desired = BenchmarkJob.job(benchmark, model, target, status.runId);
            target.note().ifPresent(note -> desired.getMetadata().setAnnotations(Map.of(NOTE_ANNOTATION, note)));
            job = Optional.of(create(client, desired, jobs));
            log.info(
                    "benchmark {}/{}: run {} started as Job {}",
                    ns,
                    model.name(),
                    status.runId,
                    desired.getMetadata().getName());
        }
        var note = Optional.ofNullable(job.get().getMetadata().getAnnotations()).map(a -> a.get(NOTE_ANNOTATION));
        var message = finished(job.get())
                ? terminationMessage(client, ns, model.name(), status.runId)
                : Optional.<String>empty();
        writeStatus(benchmark, BenchmarkStatuses.fromJob(status, job, message, note), context);
        return UpdateControl.noUpdate();
    }

    @Override
    public ErrorStatusUpdateControl<DhtBenchmark> updateErrorStatus(
            DhtBenchmark benchmark, Context<DhtBenchmark> context, Exception e) {
        var control = ErrorStatusUpdateControl.<DhtBenchmark>noStatusUpdate();
        if (!(e instanceof InvalidSpecException)) {
            log.warn(
                    "benchmark {}/{}: reconcile failed, retrying: {}",
                    benchmark.getMetadata().getNamespace(),
                    benchmark.getMetadata().getName(),
                    DhtClusterReconciler.describe(e, "request"));
            return control;
        }
        try {
            writeStatus(benchmark, BenchmarkStatuses.refused(benchmark, e.getMessage(), clock.instant()), context);
        } catch (KubernetesClientException writeFailed) {
            log.warn(
                    "could not write the Failed status of {}/{}: {}",
                    benchmark.getMetadata().getNamespace(),
                    benchmark.getMetadata().getName(),
                    writeFailed.getMessage());
        }
        // A spec that cannot run will not get better by retrying; a spec change brings a new reconcile.
        return control.withNoRetry();
    }

    /**
     * The benchmark with its current run's final state if its Job finished since the last status write (a rerun
     * right after the end must not record a complete run as superseded). Not written: the new run's status is.
     */
    private DhtBenchmark settleCurrentRun(KubernetesClient client, DhtBenchmark benchmark) {
        var status = benchmark.getStatus();
        if (status == null || status.runId == null || BenchmarkStatuses.finished(status.phase)) {
            return benchmark;
        }
        String ns = benchmark.getMetadata().getNamespace();
        String name = benchmark.getMetadata().getName();
        var job = client.batch()
                .v1()
                .jobs()
                .inNamespace(ns)
                .withName(BenchmarkNames.job(name, status.runId))
                .get();
        if (job == null || !finished(job)) {
            return benchmark;
        }
        var note = Optional.ofNullable(job.getMetadata().getAnnotations()).map(a -> a.get(NOTE_ANNOTATION));
        var settled = BenchmarkStatuses.fromJob(
                status, Optional.of(job), terminationMessage(client, ns, name, status.runId), note);
        var copy = client.getKubernetesSerialization().clone(benchmark);
        copy.setStatus(settled);
        return copy;
    }

    /** Stops the current run's Job if it still runs (suspending a Job ends its pods; the Job stays, for its logs). */
    private void stopUnfinishedRun(KubernetesClient client, DhtBenchmark benchmark) {
        var status = benchmark.getStatus();
        if (status == null || status.runId == null || BenchmarkStatuses.finished(status.phase)) {
            return;
        }
        String name = BenchmarkNames.job(benchmark.getMetadata().getName(), status.runId);
        var job = client.batch()
                .v1()
                .jobs()
                .inNamespace(benchmark.getMetadata().getNamespace())
                .withName(name);
        var live = job.get();
        if (live != null
                && !finished(live)
                && !Boolean.TRUE.equals(live.getSpec().getSuspend())) {
            job.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"suspend\":true}}");
            metrics.write("Job");
            log.info(
                    "benchmark {}/{}: stopped Job {} of superseded run {}",
                    benchmark.getMetadata().getNamespace(),
                    benchmark.getMetadata().getName(),
                    name,
                    status.runId);
        }
    }

    /** Creates an object that must not change once it exists (a Job's template, a claim); an existing one is kept. */
    private <R extends HasMetadata> R create(
            KubernetesClient client, R desired, InformerEventSource<R, DhtBenchmark> cache) {
        try {
            R created = client.resource(desired).create();
            cache.handleRecentResourceCreate(ResourceID.fromResource(created), created);
            metrics.write(desired.getKind());
            return created;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) { // created meanwhile (the cache had not seen it yet)
                return client.resource(desired).get();
            }
            throw e;
        }
    }

    /** The termination message of the run's pod: the headline JSON, or the log's tail if the program died first. */
    private static Optional<String> terminationMessage(
            KubernetesClient client, String ns, String benchmark, String runId) {
        var pods = client.pods()
                .inNamespace(ns)
                .withLabels(BenchmarkNames.runLabels(benchmark, runId, false))
                .list();
        var messages = new ArrayList<String>();
        for (Pod pod : pods.getItems()) {
            var statuses = pod.getStatus() != null ? pod.getStatus().getContainerStatuses() : null;
            if (statuses == null) {
                continue;
            }
            statuses.stream()
                    .filter(s -> BenchmarkJob.CONTAINER.equals(s.getName())
                            && s.getState() != null
                            && s.getState().getTerminated() != null
                            && s.getState().getTerminated().getMessage() != null)
                    .forEach(s -> messages.add(s.getState().getTerminated().getMessage()));
        }
        return messages.stream().findFirst();
    }

    private static boolean finished(Job job) {
        var status = job.getStatus();
        return status != null
                && status.getConditions() != null
                && status.getConditions().stream()
                        .anyMatch(c -> ("Complete".equals(c.getType()) || "Failed".equals(c.getType()))
                                && "True".equals(c.getStatus()));
    }

    /** Writes a changed status and returns the benchmark as cached with it (the next reconcile sees it). */
    private DhtBenchmark writeStatus(DhtBenchmark benchmark, DhtBenchmarkStatus status, Context<DhtBenchmark> context) {
        var written = StatusWrites.write(benchmark, status, DhtBenchmark::new, context, metrics);
        if (written.isEmpty()) {
            return benchmark;
        }
        var updated = written.get();
        if (updated.getStatus() == null) {
            updated.setStatus(status);
        }
        return updated;
    }
}
