package dev.dht.node.replication;

import dev.dht.node.api.LocalRangeHandler;
import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.RangeHandler;
import dev.dht.node.http.RangeRequest;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.plane.MemberPlane;
import dev.dht.node.storage.RangeCursor;
import dev.dht.node.storage.Store;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * /v0/entities on a cluster member: the whole cluster's live records in key order, merged from every member's
 * local range (internal range requests return tombstones and timestamps, so the newest version of each key wins
 * and deleted keys stay hidden). A one-member cluster answers from its store exactly as a standalone node.
 *
 * <p>Unreachable members: a key lives on the first RF members of its ring walk, so while fewer than RF members
 * are unreachable every key still has a reachable copy and the range goes on without them; with RF or more
 * unreachable the node answers 504 before the first byte rather than a silently incomplete listing. A member that
 * fails mid-stream cuts the response (no terminating chunk), as a failing local scan does.
 */
public final class ClusterRangeHandler implements RangeHandler {
    private final Store store;
    private final HybridLogicalClock clock;
    private final Topology topology;
    private final int timeoutMillis;
    private final LocalRangeHandler local;
    private final MemberPlane plane;

    /** @param plane where the members' member ports are (the internal range requests go there) */
    public ClusterRangeHandler(
            Store store, HybridLogicalClock clock, Topology topology, Duration requestTimeout, MemberPlane plane) {
        this.plane = plane;
        this.store = store;
        this.clock = clock;
        this.topology = topology;
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis());
        this.local = new LocalRangeHandler(store);
    }

    @Override
    public void handle(RangeRequest request, Responder responder) {
        if (request.internal()) {
            if (request.clock() > 0) {
                clock.observe(request.clock());
            }
            local.handle(request, responder);
            return;
        }
        Topology.View view = Coordinator.decidedView(topology, responder);
        if (view == null) {
            return;
        }
        // every member requests go to: during a move both sets, whose union holds every acknowledged write
        List<String> members = view.serving();
        String self = topology.self();
        if (members.size() == 1 && members.get(0).equals(self)) {
            local.handle(request, responder);
            return;
        }
        List<RangeSource> sources = new ArrayList<>(members.size());
        List<String> unreachable = new ArrayList<>();
        long reading = clock.now();
        for (String peer : members) {
            if (peer.equals(self)) {
                sources.add(new LocalSource(store.range(request.start(), request.end())));
                continue;
            }
            try {
                sources.add(new ObservingSource(
                        RemoteRangeStream.open(plane, peer, request.start(), request.end(), reading, timeoutMillis)));
            } catch (IOException | RuntimeException e) {
                unreachable.add(peer);
            }
        }
        if (view.rangeIncomplete(unreachable)) {
            sources.forEach(RangeSource::close);
            responder.fail(
                    Responses.GATEWAY_TIMEOUT,
                    "range incomplete: " + unreachable + " unreachable, and "
                            + "with replication factor "
                            + topology.rf(view.ring().size())
                            + " some keys may have no other copy");
            return;
        }
        responder.stream(new MergedRange(sources));
    }

    /** This node's own records (the cursor copies key and record on every call: read once per step). */
    private static final class LocalSource extends RangeSource {
        private final RangeCursor cursor;

        LocalSource(RangeCursor cursor) {
            this.cursor = cursor;
        }

        @Override
        boolean advance() {
            return cursor.next() && at(cursor.key(), cursor.record());
        }

        @Override
        public void close() {
            cursor.close();
        }
    }

    /** A member's stream whose record timestamps the local clock merges (the range's half of HLC merging). */
    private final class ObservingSource extends RangeSource {
        private final RemoteRangeStream stream;

        ObservingSource(RemoteRangeStream stream) {
            this.stream = stream;
        }

        @Override
        boolean advance() {
            if (!stream.advance()) {
                return false;
            }
            clock.observe(stream.record().timestamp());
            return at(stream.key(), stream.record());
        }

        @Override
        public void close() {
            stream.close();
        }
    }
}
