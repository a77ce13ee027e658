package dev.dht.node.plane;

import dev.dht.node.config.MemberPorts;
import dev.dht.node.tls.MemberTls;
import java.net.URI;

/**
 * Where members reach each other's member plane: a member is named in the member list by its client base URL
 * (placement depends on those names only), and its member port is that URL's port plus the offset every member
 * shares. Every node-to-node call goes through {@link #port} (and {@link #tls} when the member port has TLS): the
 * peer client and the range streams.
 */
public final class MemberPlane {
    /** For tools and tests that talk to a server directly: the member port is the URL's port. */
    public static final MemberPlane DIRECT = new MemberPlane(0, null);

    private final int offset;
    private final MemberTls tls;

    /** Plaintext member connections. */
    public MemberPlane(int offset) {
        this(offset, null);
    }

    /** @param tls the member port's mutual TLS, or null for plaintext */
    public MemberPlane(int offset, MemberTls tls) {
        this.offset = offset;
        this.tls = tls;
    }

    public int offset() {
        return offset;
    }

    /** Mutual TLS of member connections, or null when they are plaintext. */
    public MemberTls tls() {
        return tls;
    }

    /** The member-plane port of a member whose client port is {@code clientPort}. */
    public int port(int clientPort) {
        return clientPort + offset;
    }

    /** The member-plane port of a member named by its client base URL (http://host:port). */
    public int port(String memberUrl) {
        return MemberPorts.port(memberUrl, offset);
    }

    /**
     * The member port's listening address: every interface when members elsewhere may reach it (TLS, or
     * --member-insecure), else this machine's loopback (the family of the node's own member URL).
     */
    public static String bindAddress(String selfUrl, boolean reachableFromOtherHosts) {
        if (reachableFromOtherHosts) {
            return "0.0.0.0";
        }
        String host = URI.create(selfUrl).getHost();
        return host != null && host.startsWith("[") ? "::1" : "127.0.0.1";
    }

    @Override
    public String toString() {
        return "member port = client port " + (offset < 0 ? "- " + -offset : "+ " + offset);
    }
}
