package dev.dht.node.support;

import dev.dht.node.config.SecuritySettings;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.tls.MemberTls;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Internal calls to a member's member port through the node's own peer client, as another member makes them. */
public final class MemberCalls {
    private MemberCalls() {}

    /** One internal GET through the client with a 10 s deadline: "404", "200"... or "failed...: reason". */
    public static String get(PeerClient client, String member, String target) throws Exception {
        return send(client, member, target, 10_000).get(30, TimeUnit.SECONDS);
    }

    /** One internal GET through the client: "404", "200"..., "failed: reason" or "failed (timeout): reason". */
    public static CompletableFuture<String> send(PeerClient client, String member, String target, long deadlineMs) {
        CompletableFuture<String> result = new CompletableFuture<>();
        client.send(
                member,
                new PeerRequest("GET", target, 1, 0, null, null),
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMs),
                new PeerCallback() {
                    @Override
                    public void completed(PeerResponse r) {
                        result.complete(String.valueOf(r.status()));
                    }

                    @Override
                    public void failed(boolean timeout, String reason) {
                        result.complete("failed" + (timeout ? " (timeout)" : "") + ": " + reason);
                    }
                });
        return result;
    }

    /** One internal GET from a fresh client (new connections) holding {@code files}: as {@link #get}. */
    public static String getWith(TestCertificates.Member files, String member, String target) throws Exception {
        try (MemberTls tls = MemberTls.open(files.cert(), files.key(), files.ca(), Duration.ofMinutes(1));
                PeerClient client = new PeerClient(
                        new MemberPlane(SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET, tls),
                        1,
                        8,
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(30))) {
            return get(client, member, target);
        }
    }
}
