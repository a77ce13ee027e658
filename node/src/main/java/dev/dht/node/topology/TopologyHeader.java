package dev.dht.node.topology;

/**
 * The X-Dht-Topology header: {@code <epoch>.<a|j|s>.<id(S)>.<id(T)|->}, followed on requests by a space and the
 * sender's member URL (so that a receiver with an older state knows whom to ask). Parsed on every internal
 * request and answer, so without allocation where it can be.
 */
public final class TopologyHeader {
    public static final String NAME = "X-Dht-Topology";
    /** No header, or one that does not parse: compares below every state. */
    public static final long NONE = -1;

    private TopologyHeader() {}

    /** The request form: the state's header, a space, the sender. */
    public static String request(TopologyState state, String sender) {
        return request(state.header(), sender);
    }

    /** The request form of a state's header already computed. */
    public static String request(String stateHeader, String sender) {
        return stateHeader + " " + sender;
    }

    /** The version (3 x epoch + stage rank) of a header value, or {@link #NONE}. */
    public static long version(String value) {
        if (value == null) {
            return NONE;
        }
        int n = value.length();
        int i = 0;
        while (i < n && value.charAt(i) == ' ') {
            i++;
        }
        long epoch = 0;
        int digits = 0;
        for (; i < n; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                break;
            }
            if (++digits > 15) {
                return NONE;
            }
            epoch = epoch * 10 + (c - '0');
        }
        if (digits == 0 || i + 2 >= n || value.charAt(i) != '.' || value.charAt(i + 2) != '.') {
            return NONE;
        }
        Stage stage = Stage.ofLetter(value.charAt(i + 1));
        return stage == null ? NONE : TopologyState.version(epoch, stage);
    }

    /** The state part of a header value (without the sender), or null. */
    public static String state(String value) {
        if (value == null) {
            return null;
        }
        String v = value.trim();
        int space = v.indexOf(' ');
        return space < 0 ? v : v.substring(0, space);
    }

    /** The sender URL of a request's header value, or null when there is none. */
    public static String sender(String value) {
        if (value == null) {
            return null;
        }
        String v = value.trim();
        int space = v.indexOf(' ');
        return space < 0 ? null : v.substring(space + 1).trim();
    }
}
