package dev.dht.node.movement;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One {@link RecordBatch} PUT to a member, sent again on demand until the member accepts it (200): the batch in
 * flight of a move's {@link Streamer} and of a restore's sender alike. The sending thread sends and awaits; the
 * peer client's callback records the answer.
 */
public final class BatchCall implements PeerCallback {
    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final String member;
    private final String path;
    private final byte[] body;
    private final Supplier<String> topology;
    private final long timeoutNanos;
    private volatile CountDownLatch done;
    private volatile boolean ok;
    private volatile String failure;

    /** @param topology the topology header of each send (read again when the batch is sent again) */
    public BatchCall(
            PeerClient client,
            HybridLogicalClock clock,
            String member,
            String path,
            byte[] body,
            Supplier<String> topology,
            long timeoutNanos) {
        this.client = client;
        this.clock = clock;
        this.member = member;
        this.path = path;
        this.body = body;
        this.topology = topology;
        this.timeoutNanos = timeoutNanos;
    }

    /** Sends the batch (again), without waiting. */
    public BatchCall go() {
        done = new CountDownLatch(1);
        ok = false;
        client.send(
                member,
                new PeerRequest("PUT", path, clock.now(), 0, body, topology.get()),
                System.nanoTime() + timeoutNanos,
                this);
        return this;
    }

    /**
     * Waits for the answer to the last send (the timeout and a second more: the peer client's deadline answers
     * first); whether the member accepted the batch. Else {@link #failure} says why.
     */
    public boolean await() throws InterruptedException {
        if (!done.await(timeoutNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS)) {
            failure = member + " did not answer in time";
        }
        return ok;
    }

    public int bytes() {
        return body.length;
    }

    /** Why the last send was not accepted ("member answered 503", ...); null once it was. */
    public String failure() {
        return failure;
    }

    @Override
    public void completed(PeerResponse response) {
        if (response.clock() > 0) {
            clock.observe(response.clock());
        }
        ok = response.status() == 200;
        failure = ok ? null : member + " answered " + response.status();
        done.countDown();
    }

    @Override
    public void failed(boolean timeout, String reason) {
        failure = member + (timeout ? " did not answer in time" : ": " + reason);
        done.countDown();
    }
}
