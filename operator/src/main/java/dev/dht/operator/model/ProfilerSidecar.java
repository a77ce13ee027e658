package dev.dht.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/**
 * The profiler sidecar of a member's pod (with spec.profiler.enabled): scripts/incluster/profiler_sidecar.py of the
 * load-runner image (Python standard library) serves the node's own profiling API, GET /v0/admin/profile, on its
 * port {@value #PORT}, and answers each request by having the node profile itself through localhost. The node
 * profiles its own JVM (async-profiler ships in the node image): no shared process namespace, no ptrace, no
 * capabilities, no JDK tools. The benchmark Job's runner asks every member's sidecar and writes the flamegraphs it
 * gets into the results volume, so the volume is mounted by the Job alone (ReadWriteOnce works on any cluster).
 * The sidecar runs one capture at a time and waits (bounded) while the node answers 409 because another capture
 * runs, so a benchmark never costs a node more than one capture at a time; the node's admin port need not be
 * reachable from the load Job. It has no probes: its state never takes the member out of the Services.
 */
public final class ProfilerSidecar {
    public static final String CONTAINER = "profiler";
    public static final int PORT = 8079;
    public static final String PORT_NAME = "profiler";
    public static final String PROGRAM = "/opt/dht/py/profiler_sidecar.py";

    private ProfilerSidecar() {}

    public static Container container(ClusterModel model) {
        boolean tls = model.security().clientTls().enabled();
        var args = new java.util.ArrayList<>(java.util.List.of(
                "--port",
                Integer.toString(PORT),
                "--node",
                (tls ? "https" : "http") + "://127.0.0.1:" + Names.NODE_PORT));
        if (model.security().auth().enabled()) {
            // Callers need an admin token of the cluster (profiling is the admin plane's); it reads the nodes' file.
            args.addAll(java.util.List.of("--tokens", NodeSecurity.tokensFile()));
        }
        if (tls) {
            // The node's client-port certificate: the sidecar serves its own port with it (the admin token must not
            // cross
            // the pod network in the clear), and presents it to the node, which trusts its CA (loopback has admin
            // rights).
            args.addAll(java.util.List.of("--tls", dev.dht.operator.security.SecurityNames.CLIENT_TLS_DIR));
        }
        var mounts = new java.util.ArrayList<>(NodeSecurity.tokenMounts(model.security()));
        mounts.addAll(NodeSecurity.clientTlsMounts(model.security()));
        return new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(model.profilerImage())
                .withImagePullPolicy(model.imagePullPolicy())
                .withCommand("python3", PROGRAM)
                .withArgs(args)
                .withVolumeMounts(mounts)
                .addNewPort()
                .withName(PORT_NAME)
                .withContainerPort(PORT)
                .withProtocol("TCP")
                .endPort()
                .withNewResources()
                .withRequests(Map.of("cpu", new Quantity("10m"), "memory", new Quantity("32Mi")))
                .withLimits(Map.of("memory", new Quantity("128Mi")))
                .endResources()
                .withSecurityContext(PodSecurity.container())
                .withTerminationMessagePolicy("FallbackToLogsOnError")
                .build();
    }
}
