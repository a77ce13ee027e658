package dev.dht.operator.testing;

import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Plays the Job controller and the kubelet for one Job at a time, on a test's command (kube-api-test runs
 * neither): starts its pod from the template, then ends it with a termination message, writing the pod's and the
 * Job's status through the real API server as the real controllers would (the API server validates Job status
 * transitions: Complete needs SuccessCriteriaMet and a completion time, Failed needs FailureTarget).
 */
public final class FakeJobs {
    private final KubernetesClient client;
    private final String namespace;

    public FakeJobs(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** The Job's pod exists and runs; the Job counts it active. */
    public Pod start(String jobName) {
        var job = job(jobName);
        var template = job.getSpec().getTemplate();
        var pod = client.resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(jobName + "-x1")
                        .withNamespace(namespace)
                        .withLabels(template.getMetadata().getLabels())
                        .addToLabels("batch.kubernetes.io/job-name", jobName)
                        .withOwnerReferences(new OwnerReferenceBuilder()
                                .withApiVersion("batch/v1")
                                .withKind("Job")
                                .withName(jobName)
                                .withUid(job.getMetadata().getUid())
                                .withController(true)
                                .build())
                        .endMetadata()
                        .withSpec(template.getSpec())
                        .build())
                .create();
        pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                .withPhase("Running")
                .withContainerStatuses(new ContainerStatusBuilder()
                        .withName(container(job))
                        .withImage(image(job))
                        .withImageID("")
                        .withReady(true)
                        .withRestartCount(0)
                        .withStarted(true)
                        .withState(new ContainerStateBuilder()
                                .withNewRunning()
                                .withStartedAt(now())
                                .endRunning()
                                .build())
                        .build())
                .build());
        pod = client.resource(pod).updateStatus();
        job.getStatus().setStartTime(now());
        job.getStatus().setActive(1);
        client.resource(job).updateStatus();
        return pod;
    }

    /** The program exited 0 after writing {@code message} to its termination log; the Job is Complete. */
    public void succeed(String jobName, String message) {
        end(jobName, 0, message);
        var job = job(jobName);
        job.getStatus().setActive(0);
        job.getStatus().setSucceeded(1);
        job.getStatus().setCompletionTime(now());
        job.getStatus().getConditions().add(condition("SuccessCriteriaMet", "CompletionsReached"));
        job.getStatus().getConditions().add(condition("Complete", "CompletionsReached"));
        client.resource(job).updateStatus();
    }

    /** The program exited 1 (its termination message: {@code message}); the Job is Failed (backoffLimit 0). */
    public void fail(String jobName, String message) {
        end(jobName, 1, message);
        var job = job(jobName);
        job.getStatus().setActive(0);
        job.getStatus().setFailed(1);
        job.getStatus().getConditions().add(condition("FailureTarget", "BackoffLimitExceeded"));
        var failed = condition("Failed", "BackoffLimitExceeded");
        failed.setMessage("Job has reached the specified backoff limit");
        job.getStatus().getConditions().add(failed);
        client.resource(job).updateStatus();
    }

    private void end(String jobName, int exitCode, String message) {
        var job = job(jobName);
        var pod = client.pods().inNamespace(namespace).withName(jobName + "-x1").get();
        pod.getStatus().setPhase(exitCode == 0 ? "Succeeded" : "Failed");
        pod.getStatus()
                .setContainerStatuses(java.util.List.of(new ContainerStatusBuilder()
                        .withName(container(job))
                        .withImage(image(job))
                        .withImageID("")
                        .withReady(false)
                        .withRestartCount(0)
                        .withStarted(false)
                        .withState(new ContainerStateBuilder()
                                .withNewTerminated()
                                .withExitCode(exitCode)
                                .withMessage(message)
                                .withReason(exitCode == 0 ? "Completed" : "Error")
                                .withFinishedAt(now())
                                .endTerminated()
                                .build())
                        .build()));
        client.resource(pod).updateStatus();
    }

    private Job job(String name) {
        var job =
                client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
        if (job == null) {
            throw new AssertionError("no Job " + name + " in " + namespace);
        }
        if (job.getStatus() == null) {
            job.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatus());
        }
        return job;
    }

    private static String container(Job job) {
        return job.getSpec().getTemplate().getSpec().getContainers().get(0).getName();
    }

    private static String image(Job job) {
        return job.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
    }

    private static io.fabric8.kubernetes.api.model.batch.v1.JobCondition condition(String type, String reason) {
        return new JobConditionBuilder()
                .withType(type)
                .withStatus("True")
                .withReason(reason)
                .withLastProbeTime(now())
                .withLastTransitionTime(now())
                .build();
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
