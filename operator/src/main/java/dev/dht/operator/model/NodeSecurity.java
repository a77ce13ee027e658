package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.NodeOptions;
import dev.dht.operator.security.SecurityModel;
import dev.dht.operator.security.SecurityNames;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.KeyToPathBuilder;
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
 * Secret at {@value SecurityNames#MEMBER_TLS_DIR}, the client port's at {@value SecurityNames#CLIENT_TLS_DIR}, the
 * tokens file at {@value SecurityNames#AUTH_DIR}, the node's options pointing at them, the member port, and with
 * client TLS the plaintext metrics port the probes and scrapers use. Secret contents are not in the pod template: a
 * renewed certificate or a rotated token reaches the running nodes through the kubelet, which updates the files, and
 * the nodes reload them; only switching a part on or off changes the template (and rolls the pods).
 */
public final class NodeSecurity {
    public static final String MEMBER_TLS_VOLUME = "member-tls";
    public static final String CLIENT_TLS_VOLUME = "client-tls";
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
        var client = security.clientTls();
        if (client.enabled()) {
            env.put("DHT_CLIENT_TLS_CERT", SecurityNames.CLIENT_TLS_DIR + "/" + SecurityNames.TLS_CERT);
            env.put("DHT_CLIENT_TLS_KEY", SecurityNames.CLIENT_TLS_DIR + "/" + SecurityNames.TLS_KEY);
            if (client.clientCertificates()) {
                env.put("DHT_CLIENT_TLS_CA", SecurityNames.CLIENT_TLS_DIR + "/" + SecurityNames.CA_CERT);
                env.put("DHT_CLIENT_AUTH", client.clientAuth().name().toLowerCase(java.util.Locale.ROOT));
            }
            env.put("DHT_METRICS_PORT", Integer.toString(SecurityNames.METRICS_PORT));
        }
        return env;
    }

    public static String tokensFile() {
        return SecurityNames.AUTH_DIR + "/" + SecurityNames.TOKENS_KEY;
    }

    public static List<Volume> volumes(SecurityModel security) {
        var volumes = new ArrayList<Volume>();
        if (security.tls().enabled()) {
            volumes.add(secretVolume(MEMBER_TLS_VOLUME, security.tls().secretName(), TLS_FILES));
        }
        if (security.clientTls().enabled()) {
            volumes.add(secretVolume(CLIENT_TLS_VOLUME, security.clientTls().secretName(), TLS_FILES));
        }
        if (security.auth().enabled()) {
            // Only the tokens file: the operator's own token (another key of that Secret) stays out of the pods' files.
            volumes.add(secretVolume(AUTH_VOLUME, security.auth().tokensSecret(), List.of(SecurityNames.TOKENS_KEY)));
        }
        return volumes;
    }

    /** The keys of a TLS Secret the members read: certificate, key and CA certificate. */
    private static final List<String> TLS_FILES =
            List.of(SecurityNames.TLS_CERT, SecurityNames.TLS_KEY, SecurityNames.CA_CERT);

    /** A volume of these keys of a Secret, each as a file of its key's name, readable by owner and group. */
    private static Volume secretVolume(String name, String secretName, List<String> keys) {
        List<KeyToPath> items = keys.stream()
                .map(key -> new KeyToPathBuilder().withKey(key).withPath(key).build())
                .toList();
        return new VolumeBuilder()
                .withName(name)
                .withNewSecret()
                .withSecretName(secretName)
                .withDefaultMode(SECRET_MODE)
                .withItems(items)
                .endSecret()
                .build();
    }

    /** The node container's mounts. */
    public static List<VolumeMount> nodeMounts(SecurityModel security) {
        var mounts = new ArrayList<VolumeMount>();
        if (security.tls().enabled()) {
            mounts.add(mount(MEMBER_TLS_VOLUME, SecurityNames.MEMBER_TLS_DIR));
        }
        mounts.addAll(clientTlsMounts(security));
        mounts.addAll(tokenMounts(security));
        return mounts;
    }

    /** The client port's certificate, for the node and the profiler sidecar (it serves and calls with it). */
    public static List<VolumeMount> clientTlsMounts(SecurityModel security) {
        return security.clientTls().enabled()
                ? List.of(mount(CLIENT_TLS_VOLUME, SecurityNames.CLIENT_TLS_DIR))
                : List.of();
    }

    /** Whether the members of this live StatefulSet serve TLS on their client port (they mount its Secret). */
    public static boolean servesClientTls(io.fabric8.kubernetes.api.model.apps.StatefulSet statefulSet) {
        var template = statefulSet.getSpec() == null || statefulSet.getSpec().getTemplate() == null
                ? null
                : statefulSet.getSpec().getTemplate().getSpec();
        return template != null
                && template.getVolumes() != null
                && template.getVolumes().stream().anyMatch(v -> CLIENT_TLS_VOLUME.equals(v.getName()));
    }

    /** With client TLS, the plaintext metrics port (GET /metrics and /v0/status only): probes and scrapers. */
    public static List<ContainerPort> metricsPort(SecurityModel security) {
        return security.clientTls().enabled()
                ? List.of(new ContainerPortBuilder()
                        .withName(SecurityNames.METRICS_PORT_NAME)
                        .withContainerPort(SecurityNames.METRICS_PORT)
                        .withProtocol("TCP")
                        .build())
                : List.of();
    }

    /**
     * The port the kubelet's probes ask /v0/status on: the client port in plaintext, else the metrics port (a probe
     * presents no client certificate, which a client port with certificates required refuses).
     */
    public static String probePort(SecurityModel security) {
        return security.clientTls().enabled() ? SecurityNames.METRICS_PORT_NAME : Names.PORT_NAME;
    }

    /** The tokens file, for the node and the profiler sidecar (which checks its callers against it). */
    public static List<VolumeMount> tokenMounts(SecurityModel security) {
        return security.auth().enabled() ? List.of(mount(AUTH_VOLUME, SecurityNames.AUTH_DIR)) : List.of();
    }

    public static ContainerPort memberPort() {
        return new ContainerPortBuilder()
                .withName(SecurityNames.MEMBER_PORT_NAME)
                .withContainerPort(MEMBER_PORT)
                .withProtocol("TCP")
                .build();
    }

    private static VolumeMount mount(String volume, String path) {
        return new VolumeMountBuilder()
                .withName(volume)
                .withMountPath(path)
                .withReadOnly(true)
                .build();
    }
}
