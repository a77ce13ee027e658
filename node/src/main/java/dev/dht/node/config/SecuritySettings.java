package dev.dht.node.config;

/**
 * Settings of the node's planes (docs/security.md): where the member port is and whether it may run in plaintext
 * beyond loopback.
 *
 * @param memberPortOffset the member port is the client port plus this, the same on every member (8080 -> 18080):
 *                         a member's member-plane address is derived from its client base URL in the member list
 * @param memberInsecure   TEST NETWORKS ONLY: serve the member port in plaintext on every interface, so members on
 *                         other hosts can talk without certificates; without it and without TLS the member port
 *                         listens on loopback only
 */
public record SecuritySettings(int memberPortOffset, boolean memberInsecure) {

    public static final int DEFAULT_MEMBER_PORT_OFFSET = 10_000;

    public static SecuritySettings defaults() {
        return new SecuritySettings(DEFAULT_MEMBER_PORT_OFFSET, false);
    }

    public SecuritySettings withMemberPortOffset(int offset) {
        return new SecuritySettings(offset, memberInsecure);
    }

    public SecuritySettings withMemberInsecure(boolean insecure) {
        return new SecuritySettings(memberPortOffset, insecure);
    }
}
