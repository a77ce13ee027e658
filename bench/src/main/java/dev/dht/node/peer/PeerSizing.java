package dev.dht.node.peer;

/** The scale simulation's door to the peer client's buffer sizes (package-private in the node). */
public final class PeerSizing {
    /** Bytes of buffers one outgoing peer connection holds: its input buffer and its output buffer. */
    public static final int BYTES_PER_CONNECTION = PeerConnection.IN_SIZE + PeerConnection.OUT_SIZE;

    private PeerSizing() {}
}
