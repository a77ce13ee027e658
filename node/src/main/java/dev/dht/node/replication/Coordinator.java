package dev.dht.node.replication;

import dev.dht.node.api.LocalEntityHandler;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.http.EntityRequest;
import dev.dht.node.http.InlineResponder;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.http.WorkerPool;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.replication.choice.ReplicaChoice;
import dev.dht.node.ring.Ring;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import dev.dht.node.topology.Learner;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * /v0/entity on a cluster member: any node coordinates. The key's replicas are the first {@code from} members on
 * the ring; the coordinator sends a write to all of them at once and a read to {@code ack} of them (see
 * {@link ReadOperation}), its own copy, if it is one, straight to the store, no HTTP. It answers when {@code ack}
 * answered, and 504 as soon as {@code ack} can no longer be reached or the request timeout passes. No thread
 * waits meanwhile: the worker returns after sending, and the answer goes out from the callback that completes the
 * quorum. Internal requests (another member coordinating) go to the {@link ReplicaEndpoint}.
 */
public final class Coordinator implements EntityHandler {
    final Store store;
    final HybridLogicalClock clock;
    final PeerClient client;
    final HintSink hints;
    final long timeoutNanos;
    /** Which replicas a read asks first, and how long it waits for each before it asks the rest. */
    final ReplicaChoice choice;

    final WorkerPool slowPath;
    final LongAdder readRepairs = new LongAdder();
    /** Closed while this node rebuilds: its own copy does not count for reads. */
    final ReadGate readGate;

    private final Topology topology;
    private final ReplicaEndpoint endpoint;
    private final LocalEntityHandler local;

    /**
     * @param slowPath where local work that would have to wait runs (the worker pool): a replica's own read or
     *                 write whose record is only on disk
     * @param learner told when a request comes from a node with a newer topology state than this one's
     * @param readGate closed while this node rebuilds (dev.dht.node.rebuild): it then serves no read itself
     */
    public Coordinator(
            Store store,
            HybridLogicalClock clock,
            PeerClient client,
            Topology topology,
            HintSink hints,
            Duration requestTimeout,
            WorkerPool slowPath,
            Learner learner,
            ReadGate readGate) {
        this.readGate = readGate;
        this.store = store;
        this.clock = clock;
        this.client = client;
        this.topology = topology;
        this.hints = hints;
        this.timeoutNanos = requestTimeout.toNanos();
        this.choice = new ReplicaChoice(requestTimeout);
        this.slowPath = slowPath;
        this.endpoint = new ReplicaEndpoint(store, clock, topology, learner, readGate);
        this.local = new LocalEntityHandler(store, clock);
    }

    /** The peers' states and backup delays (metrics). */
    public ReplicaChoice choice() {
        return choice;
    }

    /** Read-repair writes that a stale replica accepted (dht_read_repairs_total). */
    public long readRepairs() {
        return readRepairs.sum();
    }

    /** Everything but internal requests and the single-local-replica path: answered when the quorum answered. */
    @Override
    public boolean coordinates(EntityRequest request) {
        return !request.internal() && !onlyLocal(request, topology.view());
    }

    /**
     * On the selector thread: a coordinated request starts here (a ring lookup, asynchronous sends, the own copy
     * in the pass's write group); a replica's part and the single-local-replica path run from memory and the pass
     * group, and decline what would have to wait.
     */
    @Override
    public boolean tryInline(EntityRequest request, InlineResponder responder) {
        if (request.internal()) {
            return endpoint.tryInline(request, responder);
        }
        // re-checked: the member set may have changed since coordinates(); then handle() decides
        if (onlyLocal(request, topology.view())) {
            if (refusedRead(request, responder)) {
                return true;
            }
            return local.tryInline(request, responder);
        }
        handle(request, responder);
        return true;
    }

    /**
     * The view a client request is served with (an entity here, a range in ClusterRangeHandler), or null after
     * answering it 503: this node has not learned the cluster's topology from its peers yet.
     */
    static Topology.View decidedView(Topology topology, Responder responder) {
        Topology.View view = topology.view();
        if (!view.decided()) {
            responder.fail(
                    Responses.SERVICE_UNAVAILABLE,
                    "this node is starting: it has not learned the cluster's topology from its peers yet; retry");
            return null;
        }
        return view;
    }

    private static boolean onlyLocal(EntityRequest request, Topology.View view) {
        return view.decided()
                && request.replicas().from() == 1
                && view.onlyLocal(request.replicas(), Ring.keyHash(request.key()));
    }

    /** A read whose only replica is this node, while it rebuilds: 503 (true), the copy may be incomplete. */
    private boolean refusedRead(EntityRequest request, Responder responder) {
        String why = request.op() == EntityRequest.Op.GET ? readGate.notServing() : null;
        if (why == null) {
            return false;
        }
        responder.fail(
                Responses.SERVICE_UNAVAILABLE,
                "this node " + why + "; read through another member or" + " with a larger from");
        return true;
    }

    /** Requests refused because this node's topology state was older than a replica accepts (421). */
    public long refusedByReplicas() {
        return endpoint.refused();
    }

    @Override
    public void handle(EntityRequest request, Responder responder) {
        if (request.internal()) {
            endpoint.handle(request, responder);
            return;
        }
        Topology.View view = decidedView(topology, responder);
        if (view == null) {
            return;
        }
        int from = request.replicas().from();
        if (from > view.maxMembers()) { // the member set shrank between parsing and now
            responder.fail(Responses.SERVICE_UNAVAILABLE, "the cluster changed while the request waited; retry");
            return;
        }
        long hash = Ring.keyHash(request.key());
        if (view.onlyLocal(request.replicas(), hash)) {
            if (!refusedRead(request, responder)) {
                local.handle(request, responder); // sole replica is this node: exactly the standalone path
            }
            return;
        }
        Topology.Plan plan = view.plan(hash, request.replicas());
        long deadline = System.nanoTime() + timeoutNanos;
        String header = view.requestHeader();
        if (request.op() == EntityRequest.Op.GET) {
            new ReadOperation(this, request.key(), hash, plan, header, deadline, responder).start();
            return;
        }
        boolean put = request.op() == EntityRequest.Op.PUT; // else DELETE
        Record record = put ? Record.value(clock.now(), request.body()) : Record.tombstone(clock.now());
        String success = put ? Responses.CREATED : Responses.ACCEPTED;
        new WriteOperation(this, request.key(), plan, header, deadline, responder, record, success).start();
    }
}
