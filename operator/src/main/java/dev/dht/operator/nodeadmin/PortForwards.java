package dev.dht.operator.nodeadmin;

import dev.dht.operator.model.Names;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.LocalPortForward;
import java.net.URI;

/**
 * Privileged admin calls through the API server's port-forward: the node sees them from its own loopback, which its
 * admin plane accepts without a token (as it accepts {@code kubectl port-forward}). Needs {@code pods/portforward}
 * in the operator's RBAC. URLs of the form {@code portforward://<namespace>/<pod>:<port>}.
 */
public final class PortForwards {
    static final String SCHEME = "portforward://";

    private PortForwards() {}

    /** The port-forward URL of a member (the port of its topology URL). */
    public static String url(String namespace, String pod, String memberUrl) {
        int port = URI.create(memberUrl).getPort();
        return SCHEME + namespace + "/" + pod + ":" + (port < 0 ? Names.NODE_PORT : port);
    }

    static boolean is(String url) {
        return url.startsWith(SCHEME);
    }

    /** An open forward and the http:// base URL that reaches the pod's port through it. */
    record Forward(LocalPortForward forward, String baseUrl) implements AutoCloseable {
        @Override
        public void close() {
            try {
                forward.close();
            } catch (java.io.IOException e) {
                // the forward is gone either way
            }
        }
    }

    static Forward open(KubernetesClient client, String url) {
        String rest = url.substring(SCHEME.length());
        int slash = rest.indexOf('/');
        int colon = rest.lastIndexOf(':');
        String namespace = rest.substring(0, slash);
        String pod = rest.substring(slash + 1, colon);
        int port = Integer.parseInt(rest.substring(colon + 1));
        LocalPortForward forward =
                client.pods().inNamespace(namespace).withName(pod).portForward(port);
        return new Forward(forward, "http://127.0.0.1:" + forward.getLocalPort());
    }
}
