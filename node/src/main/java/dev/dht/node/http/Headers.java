package dev.dht.node.http;

/** Header names the node defines. */
public final class Headers {
    /**
     * Reserved for node-to-node calls: a request carrying it comes from another member, acts on local storage
     * only and is never coordinated again. Its value is the caller's base URL. The cluster issue defines the
     * rest of the internal protocol; this version answers such requests 501.
     */
    public static final String INTERNAL = "X-Dht-Internal";

    private Headers() {
    }
}
