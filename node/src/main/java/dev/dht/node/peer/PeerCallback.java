package dev.dht.node.peer;

/**
 * Completion of one peer call: exactly one method is called once, on the client's I/O thread (or on the caller's
 * thread when the call fails before it is sent). Implementations must not block.
 */
public interface PeerCallback {
    void completed(PeerResponse response);

    /**
     * @param timeout true when the deadline passed, false for any other failure (refused, reset, saturated)
     * @param reason  a short description for logs
     */
    void failed(boolean timeout, String reason);

    /**
     * For a call sent with a slow mark ({@link PeerClient#send(String, PeerRequest, long, long, PeerCallback)}):
     * no answer yet at that mark. Called at most once, on the I/O thread; the answer or failure still comes, and
     * may race with this call. The caller may ask elsewhere meanwhile. Must not block.
     */
    default void slow() {}
}
