package dev.dht.node.plane;

import dev.dht.node.auth.ClientAuth;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;
import dev.dht.node.tls.MemberTls;

import java.io.IOException;
import java.time.Duration;

/**
 * The node's planes set up from its settings (docs/security.md): where members' member ports are, what guards each
 * port, and the credentials it checks (client tokens, the member port's mutual TLS). Opening refuses a
 * configuration the node cannot serve safely; closing stops the watchers of credential files.
 */
public final class Planes implements AutoCloseable {
    /** How often credential files are looked at for changes. */
    static final Duration RELOAD_PERIOD = Duration.ofSeconds(1);

    private final MemberPlane memberPlane;
    private final String memberBindAddress;
    private final ClientAuth auth;
    private final MemberTls tls;
    private final PlaneGuard guard;

    private Planes(MemberPlane memberPlane, String memberBindAddress, ClientAuth auth, MemberTls tls) {
        this.memberPlane = memberPlane;
        this.memberBindAddress = memberBindAddress;
        this.auth = auth;
        this.tls = tls;
        this.guard = new PlaneGuard(auth);
    }

    /**
     * IllegalArgumentException (or IOException for an unreadable file) with the reason when the node must not
     * start this way.
     */
    public static Planes open(NodeConfig config) throws IOException {
        SecuritySettings s = config.security();
        SecuritySettings.TlsFiles files = s.memberTls();
        String problem = MemberPlane.problem(config.members(), s.memberPortOffset(), files != null,
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
                MemberPlane.bindAddress(config.self(), tls != null || s.memberInsecure()), auth, tls);
    }

    public MemberPlane memberPlane() {
        return memberPlane;
    }

    /** Where the member port listens. */
    public String memberBindAddress() {
        return memberBindAddress;
    }

    public PlaneGuard guard() {
        return guard;
    }

    /** The member port's mutual TLS, or null when it runs in plaintext. */
    public MemberTls tls() {
        return tls;
    }

    /** For the start-up log line. */
    public String describe() {
        return (tls != null ? "mutual TLS" : "plaintext") + " on " + memberBindAddress
                + (auth != null ? "; client tokens required" : "; client API open");
    }

    /** Client tokens, or null when the client API is open. */
    public ClientAuth auth() {
        return auth;
    }

    @Override
    public void close() {
        if (auth != null) {
            auth.close();
        }
        if (tls != null) {
            tls.close();
        }
    }
}
