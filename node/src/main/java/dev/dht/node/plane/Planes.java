package dev.dht.node.plane;

import dev.dht.node.auth.ClientAuth;
import dev.dht.node.config.MemberPorts;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.tls.MemberTls;

import java.io.IOException;
import java.time.Duration;

/**
 * The node's planes set up from its settings (docs/security.md): where members' member ports are, what guards each
 * port, and the credentials it checks (client tokens, the member port's mutual TLS). Opening refuses a
 * configuration the node cannot serve safely; closing stops the watchers of credential files. The member port's
 * TLS is the member plane's ({@link MemberPlane#tls}); the guard checks the client tokens ({@link PlaneGuard}).
 */
public record Planes(MemberPlane memberPlane, String memberBindAddress, ClientAuth auth, PlaneGuard guard)
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
        String problem = MemberPorts.problem(config.members(), s.memberPortOffset(), files != null,
                s.memberInsecure());
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        MemberTls tls = files == null ? null : MemberTls.open(files.cert(), files.key(), files.ca(), RELOAD_PERIOD);
        ClientAuth auth;
        try {
            auth = s.authTokens() == null ? null : ClientAuth.open(s.authTokens(), RELOAD_PERIOD);
        } catch (IOException | RuntimeException e) {
            if (tls != null) {
                tls.close();
            }
            throw e;
        }
        return new Planes(new MemberPlane(s.memberPortOffset(), tls),
                MemberPlane.bindAddress(config.self(), tls != null || s.memberInsecure()), auth, new PlaneGuard(auth));
    }

    /** The member port's mutual TLS (the member plane's), or null when it runs in plaintext. */
    public MemberTls tls() {
        return memberPlane.tls();
    }

    /** For the start-up log line. */
    public String describe() {
        return (tls() != null ? "mutual TLS" : "plaintext") + " on " + memberBindAddress
                + (auth != null ? "; client tokens required" : "; client API open");
    }

    @Override
    public void close() {
        if (auth != null) {
            auth.close();
        }
        MemberTls tls = tls();
        if (tls != null) {
            tls.close();
        }
    }
}
