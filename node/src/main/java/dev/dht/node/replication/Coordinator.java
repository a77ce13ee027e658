package dev.dht.node.replication;

import dev.dht.node.api.LocalEntityHandler;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.http.EntityRequest;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.ring.Ring;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * /v0/entity on a cluster member: any node coordinates. The key's replicas are the first {@code from} members on
 * the ring; the coordinator sends to all of them at once (its own copy, if it is one, straight to the store, no
 * HTTP), answers when {@code ack} answered, and 504 as soon as {@code ack} can no longer be reached or the request
 * timeout passes. No thread waits meanwhile: the worker returns after sending, and the answer goes out from the
 * callback that completes the quorum. Internal requests (another member coordinating) go to the
 * {@link ReplicaEndpoint}.
 */
public final class Coordinator implements EntityHandler {
    final Store store;
    final HybridLogicalClock clock;
    final PeerClient client;
    final HintSink hints;
    final long timeoutNanos;
    final LongAdder readRepairs = new LongAdder();
    private final Topology topology;
    private final ReplicaEndpoint endpoint;
    private final LocalEntityHandler local;

    public Coordinator(Store store, HybridLogicalClock clock, PeerClient client, Topology topology, HintSink hints,
                       Duration requestTimeout) {
        this.store = store;
        this.clock = clock;
        this.client = client;
        this.topology = topology;
        this.hints = hints;
        this.timeoutNanos = requestTimeout.toNanos();
        this.endpoint = new ReplicaEndpoint(store, clock);
        this.local = new LocalEntityHandler(store, clock);
    }

    /** Read-repair writes that a stale replica accepted (dht_read_repairs_total). */
    public long readRepairs() {
        return readRepairs.sum();
    }

    /**
     * Everything but the single-replica local path runs on the selector: the coordinator's own work never waits
     * (sends are asynchronous, its copy is one store operation). The local path keeps the standalone node's
     * worker pool and its 503-on-full-queue behaviour unchanged.
     */
    @Override
    public boolean runsInline(EntityRequest request) {
        if (request.internal()) {
            return true;
        }
        return !onlyLocal(request, topology.view());
    }

    /** The single-local-replica case gets the standalone node's fast path (answered from memory on the selector). */
    @Override
    public boolean tryInline(EntityRequest request, Responder responder) {
        // re-checked: the member set may have changed since runsInline; then the worker's handle() decides
        return onlyLocal(request, topology.view()) && local.tryInline(request, responder);
    }

    private static boolean onlyLocal(EntityRequest request, Topology.View view) {
        return request.replicas().from() == 1
                && view.ring().primaryIndex(Ring.keyHash(request.key())) == view.selfIndex();
    }

    @Override
    public void handle(EntityRequest request, Responder responder) {
        if (request.internal()) {
            endpoint.handle(request, responder);
            return;
        }
        Topology.View view = topology.view();
        Ring ring = view.ring();
        int from = request.replicas().from();
        if (from > ring.size()) { // the member set shrank between parsing and now
            responder.fail(Responses.SERVICE_UNAVAILABLE, "the cluster changed while the request waited; retry");
            return;
        }
        int[] replicas = new int[from];
        ring.replicaIndexes(Ring.keyHash(request.key()), from, replicas);
        if (from == 1 && replicas[0] == view.selfIndex()) {
            local.handle(request, responder); // sole replica is this node: exactly the standalone path
            return;
        }
        String[] urls = new String[from];
        int selfSlot = -1;
        for (int i = 0; i < from; i++) {
            urls[i] = view.member(replicas[i]);
            if (replicas[i] == view.selfIndex()) {
                selfSlot = i;
            }
        }
        long deadline = System.nanoTime() + timeoutNanos;
        int ack = request.replicas().ack();
        switch (request.op()) {
            case GET -> new ReadOperation(this, request.key(), urls, selfSlot, ack, deadline, responder).start();
            case PUT -> new WriteOperation(this, request.key(), urls, selfSlot, ack, deadline, responder,
                    Record.value(clock.now(), request.body()), Responses.CREATED).start();
            case DELETE -> new WriteOperation(this, request.key(), urls, selfSlot, ack, deadline, responder,
                    Record.tombstone(clock.now()), Responses.ACCEPTED).start();
        }
    }
}
