package dev.dht.node.plane;

import dev.dht.node.auth.ClientAuth;
import dev.dht.node.config.MemberPorts;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.tls.ClientTls;
import dev.dht.node.tls.MemberTls;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The node's planes set up from its settings (docs/security.md): where members' member ports are, what guards each
 * port, and the credentials it checks (client tokens, the client port's TLS and client certificates, the member
 * port's mutual TLS). Opening refuses a configuration the node cannot serve safely; closing stops the watchers of
 * credential files. The member port's TLS is the member plane's ({@link MemberPlane#tls}); the guard checks the
 * client credentials ({@link PlaneGuard}).
 *
 * @param clientTls the client port's TLS, or null when it is plaintext
 */
public record Planes(
        MemberPlane memberPlane, String memberBindAddress, ClientAuth auth, ClientTls clientTls, PlaneGuard guard)
        implements AutoCloseable {
    /** How often credential files are looked at for changes. */
    static final Duration RELOAD_PERIOD = Duration.ofSeconds(1);

    /**
     * IllegalArgumentException (or IOException for an unreadable file) with the reason when the node must not
     * start this way.
     */
    public static Planes open(NodeConfig config) throws IOException {
        SecuritySettings s = config.security();
        SecuritySettings.TlsFiles files = s.memberTls();
        String problem = MemberPorts.problem(config.members(), s.memberPortOffset(), files != null, s.memberInsecure());
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            MemberTls tls = files == null
                    ? null
                    : opened(opened, MemberTls.open(files.cert(), files.key(), files.ca(), RELOAD_PERIOD));
            SecuritySettings.ClientTlsFiles c = s.clientTls();
            ClientTls clientTls = c == null
                    ? null
                    : opened(opened, ClientTls.open(c.cert(), c.key(), c.ca(), c.certificates(), RELOAD_PERIOD));
            ClientAuth auth =
                    s.authTokens() == null ? null : opened(opened, ClientAuth.open(s.authTokens(), RELOAD_PERIOD));
            boolean certificates = c != null && c.certificates() != SecuritySettings.ClientCertificates.NONE;
            return new Planes(
                    new MemberPlane(s.memberPortOffset(), tls),
                    MemberPlane.bindAddress(config.self(), tls != null || s.memberInsecure()),
                    auth,
                    clientTls,
                    new PlaneGuard(auth, certificates));
        } catch (IOException | RuntimeException e) {
            for (AutoCloseable c : opened) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // closing what was opened before the failure
                }
            }
            throw e;
        }
    }

    private static <T extends AutoCloseable> T opened(List<AutoCloseable> opened, T closeable) {
        opened.add(closeable);
        return closeable;
    }

    /** The member port's mutual TLS (the member plane's), or null when it runs in plaintext. */
    public MemberTls tls() {
        return memberPlane.tls();
    }

    /** For the start-up log line. */
    public String describe() {
        String client = clientTls == null
                ? "client port plaintext"
                : "client port TLS (client certificates "
                        + clientTls.auth().name().toLowerCase(java.util.Locale.ROOT) + ")";
        return (tls() != null ? "mutual TLS" : "plaintext") + " on " + memberBindAddress + "; " + client
                + (auth != null ? "; client tokens required" : "; no client tokens");
    }

    @Override
    public void close() {
        if (auth != null) {
            auth.close();
        }
        if (clientTls != null) {
            clientTls.close();
        }
        MemberTls tls = tls();
        if (tls != null) {
            tls.close();
        }
    }
}
