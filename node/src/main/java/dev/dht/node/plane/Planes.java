package dev.dht.node.plane;

import dev.dht.node.auth.ClientAuth;
import dev.dht.node.config.NodeConfig;
import dev.dht.node.config.SecuritySettings;

import java.io.IOException;
import java.time.Duration;

/**
 * The node's planes set up from its settings (docs/security.md): where members' member ports are, what guards each
 * port, and the credentials it checks (client tokens). Opening refuses a configuration the node cannot serve
 * safely; closing stops the watchers of credential files.
 */
public final class Planes implements AutoCloseable {
    /** How often credential files are looked at for changes. */
    static final Duration RELOAD_PERIOD = Duration.ofSeconds(1);

    private final MemberPlane memberPlane;
    private final String memberBindAddress;
    private final ClientAuth auth;
    private final PlaneGuard guard;

    private Planes(MemberPlane memberPlane, String memberBindAddress, ClientAuth auth) {
        this.memberPlane = memberPlane;
        this.memberBindAddress = memberBindAddress;
        this.auth = auth;
        this.guard = new PlaneGuard(auth);
    }

    /**
     * IllegalArgumentException (or IOException for an unreadable file) with the reason when the node must not
     * start this way.
     */
    public static Planes open(NodeConfig config) throws IOException {
        SecuritySettings s = config.security();
        String problem = MemberPlane.problem(config.members(), s.memberPortOffset(), false, s.memberInsecure());
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        ClientAuth auth = s.authTokens() == null ? null : ClientAuth.open(s.authTokens(), RELOAD_PERIOD);
        return new Planes(new MemberPlane(s.memberPortOffset()),
                MemberPlane.bindAddress(config.self(), s.memberInsecure()), auth);
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

    /** Client tokens, or null when the client API is open. */
    public ClientAuth auth() {
        return auth;
    }

    @Override
    public void close() {
        if (auth != null) {
            auth.close();
        }
    }
}
