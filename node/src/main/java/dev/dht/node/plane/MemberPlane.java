package dev.dht.node.plane;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.tls.MemberTls;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

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
        URI uri = URI.create(memberUrl);
        return port(uri.getPort() < 0 ? 80 : uri.getPort());
    }

    /**
     * Whether the member's host is this machine's loopback ({@code localhost}, 127.0.0.0/8, ::1). Decided from the
     * name alone, without DNS: a name that merely resolves to loopback counts as remote (the safe side).
     */
    public static boolean isLoopback(String memberUrl) {
        String host = URI.create(memberUrl).getHost();
        if (host == null) {
            return false;
        }
        if (host.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!isAddressLiteral(host)) {
            return false;
        }
        try {
            return InetAddress.getByName(host).isLoopbackAddress(); // a literal: parsed, never looked up
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static boolean isAddressLiteral(String host) {
        if (host.startsWith("[")) {
            return true;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return !host.isEmpty();
    }

    /** The members of the list that are not on loopback (they need TLS, or --member-insecure). */
    public static List<String> remoteMembers(ClusterMembers members) {
        List<String> remote = new ArrayList<>();
        for (String m : members.urls()) {
            if (!isLoopback(m)) {
                remote.add(m);
            }
        }
        return remote;
    }

    /** Members whose member port would fall outside 1..65535 with this offset. */
    public List<String> outOfRange(ClusterMembers members) {
        List<String> bad = new ArrayList<>();
        for (String m : members.urls()) {
            int p = port(m);
            if (p < 1 || p > 65535) {
                bad.add(m);
            }
        }
        return bad;
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

    /**
     * Why this member list cannot run with these settings, or null: every member port must be a valid port, and
     * without TLS a member on another host could only reach this node's member port in plaintext, which is allowed
     * with --member-insecure only.
     */
    public static String problem(ClusterMembers members, int offset, boolean tls, boolean insecure) {
        if (offset == 0) {
            return "--member-port-offset must not be 0: the member port is the client port plus the offset";
        }
        List<String> bad = new MemberPlane(offset, null).outOfRange(members);
        if (!bad.isEmpty()) {
            return "with --member-port-offset " + offset + " the member port of " + bad + " is outside 1..65535";
        }
        List<String> remote = remoteMembers(members);
        if (!tls && !insecure && !remote.isEmpty()) {
            return "members " + remote + " are not on this machine's loopback, and the member port has no TLS: give"
                    + " --member-tls-cert, --member-tls-key and --member-tls-ca (mutual TLS between members), or"
                    + " --member-insecure on a trusted test network only";
        }
        return null;
    }

    @Override
    public String toString() {
        return "member port = client port " + (offset < 0 ? "- " + -offset : "+ " + offset);
    }
}
