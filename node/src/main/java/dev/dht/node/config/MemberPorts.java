package dev.dht.node.config;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The member ports a member list and the member-port settings give (a member's client port plus the offset every
 * member shares), and whether they can run: pure checks of the configuration, used when it is parsed and by the
 * member plane ({@code plane.MemberPlane}) that listens and connects.
 */
public final class MemberPorts {
    private MemberPorts() {}

    /** The member port of a member named by its client base URL (http://host:port). */
    public static int port(String memberUrl, int offset) {
        URI uri = URI.create(memberUrl);
        return (uri.getPort() < 0 ? 80 : uri.getPort()) + offset;
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
    public static List<String> outOfRange(ClusterMembers members, int offset) {
        List<String> bad = new ArrayList<>();
        for (String m : members.urls()) {
            int p = port(m, offset);
            if (p < 1 || p > 65535) {
                bad.add(m);
            }
        }
        return bad;
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
        List<String> bad = outOfRange(members, offset);
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
}
