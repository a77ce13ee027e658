package dev.dht.operator.benchmark.model;

import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.api.v1alpha1.LoadProfile;
import dev.dht.operator.api.v1alpha1.ProfilerEvent;
import dev.dht.operator.api.v1alpha1.Tape;
import dev.dht.operator.model.Owners;
import dev.dht.operator.model.PodSecurity;
import dev.dht.operator.security.SecurityNames;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The load Job of one run: a pod of the load-runner image running {@value #PROGRAM}, which runs the bench runner
 * ({@code python3 -m runner run}) over the tapes against the target, with every member's profiler sidecar as the
 * runner's profiling endpoint (the runner writes the flamegraphs it gets into the results volume), and leaves the
 * headline figures as its termination message (the operator reads them from the pod's status; the Job needs no
 * API access).
 *
 * <p>The Job's contract (arguments, output layout, termination message) is {@link #args} here and the docstring of
 * scripts/incluster/benchjob.py; docs/operations.md describes it for users.
 *
 * <p>One attempt (backoffLimit 0): a retried run would mix two attempts' files in one directory; a failed run is
 * re-run with the rerun annotation instead. The pod runs as the same non-root user as the nodes, with a read-only
 * root filesystem and no service account token.
 */
public final class BenchmarkJob {
    public static final String CONTAINER = "runner";
    public static final String PROGRAM = "/opt/dht/py/benchjob.py";
    public static final String TERMINATION_LOG = "/dev/termination-log";
    static final String RESULTS_VOLUME = "results";
    static final String TMP_VOLUME = "tmp";
    static final long USER_ID = 10001L;
    /** Seconds a tape may take beyond its duration (pre-fill at a modest rate, k6 start-up, the summary). */
    static final long TAPE_SLACK_SECONDS = 120;

    static final long PREFILL_KEYS_PER_SECOND = 200;
    static final long JOB_SLACK_SECONDS = 300;

    private BenchmarkJob() {}

    public static Job job(DhtBenchmark benchmark, BenchmarkModel model, BenchmarkTarget target, String runId) {
        String name = model.name();
        return new JobBuilder()
                .withMetadata(Owners.metadata(
                        benchmark, BenchmarkNames.job(name, runId), BenchmarkNames.runLabels(name, runId, true)))
                .withNewSpec()
                .withBackoffLimit(0)
                .withActiveDeadlineSeconds(deadlineSeconds(model))
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(BenchmarkNames.runLabels(name, runId, false))
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withSecurityContext(PodSecurity.pod(USER_ID))
                .addNewContainer()
                .withName(CONTAINER)
                .withImage(model.image())
                .withImagePullPolicy("IfNotPresent")
                .withCommand("python3", PROGRAM)
                .withArgs(args(model, target, runId))
                .withEnv(tokens(target))
                .addAllToEnv(clientTlsEnv(target))
                .withNewResources()
                // A small request so that the Job schedules next to the members on a small cluster; the engine
                // uses what is free (no CPU limit), memory grows with the rate (k6 and oha keep every sample).
                .withRequests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("256Mi")))
                .withLimits(Map.of("memory", new Quantity("1Gi")))
                .endResources()
                .withSecurityContext(PodSecurity.container())
                .withTerminationMessagePath(TERMINATION_LOG)
                // The program writes the headline JSON there; if it dies first, the log's tail says why.
                .withTerminationMessagePolicy("FallbackToLogsOnError")
                .addNewVolumeMount()
                .withName(RESULTS_VOLUME)
                .withMountPath(BenchmarkNames.RESULTS_DIR)
                .endVolumeMount()
                .addNewVolumeMount()
                .withName(TMP_VOLUME)
                .withMountPath("/tmp")
                .endVolumeMount()
                .addAllToVolumeMounts(clientTlsMounts(target))
                .endContainer()
                .addAllToVolumes(clientTlsVolumes(target))
                .addNewVolume()
                .withName(RESULTS_VOLUME)
                .withNewPersistentVolumeClaim()
                .withClaimName(BenchmarkNames.resultsClaim(name))
                .endPersistentVolumeClaim()
                .endVolume()
                .addNewVolume()
                .withName(TMP_VOLUME)
                .withNewEmptyDir()
                .withSizeLimit(new Quantity("1Gi"))
                .endEmptyDir()
                .endVolume()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    /**
     * The cluster's tokens, when it requires them: read-write for the load (k6 sends DHT_TOKEN), admin for the
     * profiler sidecars (the runner sends DHT_ADMIN_TOKEN). Read from the credentials Secret when the pod starts, so a
     * rotated token reaches the next run.
     */
    static List<EnvVar> tokens(BenchmarkTarget target) {
        var env = new ArrayList<EnvVar>();
        target.credentials().ifPresent(secret -> {
            env.add(secretEnv("DHT_TOKEN", secret, "read-write", false));
            if (!target.profilers().isEmpty()) {
                env.add(secretEnv("DHT_ADMIN_TOKEN", secret, "admin", true));
            }
        });
        return env;
    }

    static final String CA_VOLUME = "client-ca";
    static final String CERTIFICATE_VOLUME = "client-certificate";
    static final String CERTIFICATE_DIR = "/etc/dht/client";

    /**
     * With client TLS: the CA bundle (DHT_CA: what the engines and the runner trust for the members and their
     * sidecars), and when the members ask for client certificates the benchmark's own (DHT_CLIENT_CERT, DHT_CLIENT_KEY:
     * read-write). Read when the pod starts, so a renewed one reaches the next run.
     */
    static List<EnvVar> clientTlsEnv(BenchmarkTarget target) {
        var env = new ArrayList<EnvVar>();
        target.clientTls().ifPresent(tls -> {
            env.add(new EnvVarBuilder()
                    .withName("DHT_CA")
                    .withValue(SecurityNames.CLIENT_CA_DIR + "/" + SecurityNames.CA_CERT)
                    .build());
            if (tls.certificateSecret().isPresent()) {
                env.add(new EnvVarBuilder()
                        .withName("DHT_CLIENT_CERT")
                        .withValue(CERTIFICATE_DIR + "/" + SecurityNames.TLS_CERT)
                        .build());
                env.add(new EnvVarBuilder()
                        .withName("DHT_CLIENT_KEY")
                        .withValue(CERTIFICATE_DIR + "/" + SecurityNames.TLS_KEY)
                        .build());
            }
        });
        return env;
    }

    private static List<VolumeMount> clientTlsMounts(BenchmarkTarget target) {
        var mounts = new ArrayList<VolumeMount>();
        target.clientTls().ifPresent(tls -> {
            mounts.add(new VolumeMountBuilder()
                    .withName(CA_VOLUME)
                    .withMountPath(SecurityNames.CLIENT_CA_DIR)
                    .withReadOnly(true)
                    .build());
            tls.certificateSecret()
                    .ifPresent(s -> mounts.add(new VolumeMountBuilder()
                            .withName(CERTIFICATE_VOLUME)
                            .withMountPath(CERTIFICATE_DIR)
                            .withReadOnly(true)
                            .build()));
        });
        return mounts;
    }

    private static List<Volume> clientTlsVolumes(BenchmarkTarget target) {
        var volumes = new ArrayList<Volume>();
        target.clientTls().ifPresent(tls -> {
            volumes.add(new VolumeBuilder()
                    .withName(CA_VOLUME)
                    .withNewConfigMap()
                    .withName(tls.caConfigMap())
                    .endConfigMap()
                    .build());
            tls.certificateSecret()
                    .ifPresent(s -> volumes.add(new VolumeBuilder()
                            .withName(CERTIFICATE_VOLUME)
                            .withNewSecret()
                            .withSecretName(s)
                            .withDefaultMode(0440)
                            .endSecret()
                            .build()));
        });
        return volumes;
    }

    private static EnvVar secretEnv(String name, String secret, String key, boolean optional) {
        return new EnvVarBuilder()
                .withName(name)
                .withNewValueFrom()
                .withNewSecretKeyRef()
                .withName(secret)
                .withKey(key)
                .withOptional(optional)
                .endSecretKeyRef()
                .endValueFrom()
                .build();
    }

    /** The program's command line: the Job's contract with scripts/incluster/benchjob.py. */
    public static List<String> args(BenchmarkModel model, BenchmarkTarget target, String runId) {
        var args = new ArrayList<String>();
        add(args, "--benchmark", model.name());
        add(args, "--run-id", runId);
        add(args, "--out", BenchmarkNames.RESULTS_DIR + "/" + BenchmarkNames.artifactPath(model.name(), runId));
        add(args, "--tapes", model.tapes().stream().map(Tape::id).collect(Collectors.joining(",")));
        add(args, "--engine", model.engine().id());
        add(args, "--profile", model.profile().id());
        if (model.profile() == LoadProfile.CONST) {
            add(args, "--rate", Integer.toString(model.rate()));
        } else {
            add(args, "--ramp-to", Integer.toString(model.rampTo().orElseThrow()));
        }
        add(args, "--duration", BenchmarkModel.seconds(model.duration()));
        model.replicas().ifPresent(r -> add(args, "--replicas", r));
        add(args, "--prefill", Integer.toString(model.prefill()));
        add(args, "--value-size", Integer.toString(model.valueSize()));
        add(args, "--targets", String.join(",", target.loadUrls()));
        if (!target.profilers().isEmpty()) {
            target.profilers().forEach((pod, url) -> add(args, "--profiler", pod + "=" + url));
            add(
                    args,
                    "--events",
                    target.events().stream().map(ProfilerEvent::name).collect(Collectors.joining(",")));
            add(args, "--capture", BenchmarkModel.seconds(model.capture()));
        }
        add(args, "--termination-log", TERMINATION_LOG);
        return args;
    }

    /** A generous bound on the run: a hung load generator must not hold the results volume for ever. */
    static long deadlineSeconds(BenchmarkModel model) {
        long perTape = model.duration().toSeconds() + TAPE_SLACK_SECONDS + model.prefill() / PREFILL_KEYS_PER_SECOND;
        return perTape * model.tapes().size() + JOB_SLACK_SECONDS;
    }

    private static void add(List<String> args, String option, String value) {
        args.add(option);
        args.add(value);
    }
}
