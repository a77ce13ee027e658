package dev.dht.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.util.Map;

/**
 * The profiler sidecar of a member's pod (with spec.profiler.enabled): a small HTTP service of the load-runner
 * image (scripts/incluster/profiler_sidecar.py, Python standard library) that, when a benchmark Job asks, has
 * the node profile itself through GET /v0/admin/profile on localhost and keeps the flamegraph in an emptyDir
 * until the Job fetches it. The node profiles its own JVM (async-profiler ships in its image): no shared process
 * namespace, no ptrace, no capabilities. A node busy with another capture answers 409; the sidecar waits for it
 * (bounded) and never starts a second capture, so a benchmark never costs the node more than one capture at a
 * time. It has no probes: its state never takes the member out of the Services.
 */
public final class ProfilerSidecar {
  public static final String CONTAINER = "profiler";
  public static final int PORT = 8079;
  public static final String PORT_NAME = "profiler";
  public static final String VOLUME = "profiles";
  public static final String DIR = "/profiles";
  public static final String PROGRAM = "/opt/dht/py/profiler_sidecar.py";
  /** Flamegraph HTML files are 0.1-5 MB each; the Job deletes them once copied. */
  static final String VOLUME_LIMIT = "512Mi";

  private ProfilerSidecar() {}

  public static Container container(ClusterModel model) {
    return new ContainerBuilder()
        .withName(CONTAINER)
        .withImage(model.profilerImage())
        .withImagePullPolicy(model.imagePullPolicy())
        .withCommand("python3", PROGRAM)
        .withArgs("--port", Integer.toString(PORT), "--node", "http://127.0.0.1:" + Names.NODE_PORT,
            "--dir", DIR)
        .addNewPort().withName(PORT_NAME).withContainerPort(PORT).withProtocol("TCP").endPort()
        .withNewResources()
          .withRequests(Map.of("cpu", new Quantity("10m"), "memory", new Quantity("32Mi")))
          .withLimits(Map.of("memory", new Quantity("128Mi")))
        .endResources()
        .withNewSecurityContext()
          .withAllowPrivilegeEscalation(false)
          .withReadOnlyRootFilesystem(true)
          .withRunAsNonRoot(true)
          .withNewCapabilities().withDrop("ALL").endCapabilities()
        .endSecurityContext()
        .addNewVolumeMount().withName(VOLUME).withMountPath(DIR).endVolumeMount()
        .withTerminationMessagePolicy("FallbackToLogsOnError")
        .build();
  }

  public static Volume volume() {
    return new VolumeBuilder()
        .withName(VOLUME)
        .withNewEmptyDir().withSizeLimit(new Quantity(VOLUME_LIMIT)).endEmptyDir()
        .build();
  }
}
