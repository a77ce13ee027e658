package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.NodeOptions;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.SecurityNames;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How the pods get what the security settings made (the node contract, docs/security.md): the member certificate
 * Secret at {@value SecurityNames#MEMBER_TLS_DIR}, the tokens file at {@value SecurityNames#AUTH_DIR}, the node's
 * options pointing at them, and the member port. Secret contents are not in the pod template: a renewed certificate
 * or a rotated token reaches the running nodes through the kubelet, which updates the files, and the nodes reload
 * them; only switching a part on or off changes the template (and rolls the pods).
 */
public final class NodeSecurity {
  public static final String MEMBER_TLS_VOLUME = "member-tls";
  public static final String AUTH_VOLUME = "auth";
  public static final int MEMBER_PORT = Names.NODE_PORT + SecurityNames.MEMBER_PORT_OFFSET;
  /** Secret files readable by the pod's group (fsGroup), not by others. */
  static final int SECRET_MODE = 0440;

  private NodeSecurity() {}

  /** The node's options as DHT_* variables (they join the config ConfigMap). */
  public static SortedMap<String, String> environment(SecurityModel security) {
    var env = new TreeMap<String, String>();
    if (security.tls().enabled()) {
      env.put(NodeOptions.Env.MEMBER_TLS_CERT, SecurityNames.MEMBER_TLS_DIR + "/" + SecurityNames.TLS_CERT);
      env.put(NodeOptions.Env.MEMBER_TLS_KEY, SecurityNames.MEMBER_TLS_DIR + "/" + SecurityNames.TLS_KEY);
      env.put(NodeOptions.Env.MEMBER_TLS_CA, SecurityNames.MEMBER_TLS_DIR + "/" + SecurityNames.CA_CERT);
    } else {
      // spec.tls.mode Disabled: members reach each other's member port across pods in plaintext.
      env.put(NodeOptions.Env.MEMBER_INSECURE, "true");
    }
    if (security.auth().enabled()) {
      env.put(NodeOptions.Env.AUTH_TOKENS, tokensFile());
    }
    return env;
  }

  public static String tokensFile() {
    return SecurityNames.AUTH_DIR + "/" + SecurityNames.TOKENS_KEY;
  }

  public static List<Volume> volumes(SecurityModel security) {
    var volumes = new ArrayList<Volume>();
    if (security.tls().enabled()) {
      volumes.add(new VolumeBuilder().withName(MEMBER_TLS_VOLUME).withNewSecret()
          .withSecretName(security.tls().secretName()).withDefaultMode(SECRET_MODE)
          .addNewItem().withKey(SecurityNames.TLS_CERT).withPath(SecurityNames.TLS_CERT).endItem()
          .addNewItem().withKey(SecurityNames.TLS_KEY).withPath(SecurityNames.TLS_KEY).endItem()
          .addNewItem().withKey(SecurityNames.CA_CERT).withPath(SecurityNames.CA_CERT).endItem()
          .endSecret().build());
    }
    if (security.auth().enabled()) {
      // Only the tokens file: the operator's own token (another key of that Secret) stays out of the pods' files.
      volumes.add(new VolumeBuilder().withName(AUTH_VOLUME).withNewSecret()
          .withSecretName(security.auth().tokensSecret()).withDefaultMode(SECRET_MODE)
          .addNewItem().withKey(SecurityNames.TOKENS_KEY).withPath(SecurityNames.TOKENS_KEY).endItem()
          .endSecret().build());
    }
    return volumes;
  }

  /** The node container's mounts. */
  public static List<VolumeMount> nodeMounts(SecurityModel security) {
    var mounts = new ArrayList<VolumeMount>();
    if (security.tls().enabled()) {
      mounts.add(mount(MEMBER_TLS_VOLUME, SecurityNames.MEMBER_TLS_DIR));
    }
    mounts.addAll(tokenMounts(security));
    return mounts;
  }

  /** The tokens file, for the node and the profiler sidecar (which checks its callers against it). */
  public static List<VolumeMount> tokenMounts(SecurityModel security) {
    return security.auth().enabled() ? List.of(mount(AUTH_VOLUME, SecurityNames.AUTH_DIR)) : List.of();
  }

  public static ContainerPort memberPort() {
    return new ContainerPortBuilder().withName(SecurityNames.MEMBER_PORT_NAME).withContainerPort(MEMBER_PORT)
        .withProtocol("TCP").build();
  }

  private static VolumeMount mount(String volume, String path) {
    return new VolumeMountBuilder().withName(volume).withMountPath(path).withReadOnly(true).build();
  }
}
