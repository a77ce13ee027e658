package dev.dht.node.repair;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.io.Throttle;
import dev.dht.node.movement.RecordBatch;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Repair's calls to other members, through the node's peer client (so they are pipelined with everything else and
 * carry the clock and topology headers). Calls start asynchronously ({@link #start}) so that one step asks every
 * replica at once; the repair thread then waits for each answer. Every byte in and out goes through the throttle.
 */
final class RepairPeers {
    static final String PREFIX = "/v0/internal/repair/";
    static final String HASHES = PREFIX + "hashes";
    static final String DIGESTS = PREFIX + "digests";
    static final String FETCH = PREFIX + "fetch";
    static final String RECORDS = PREFIX + "records";
    static final String DONE = PREFIX + "done";
    static final String STATE = PREFIX + "state";

    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final Supplier<String> topologyHeader;
    private final long timeoutNanos;
    private final Throttle throttle;
    private final RepairStats stats;

    /**
     * @param timeout a call's deadline: repair calls scan and may read the disk, so longer than a client request's
     */
    RepairPeers(
            PeerClient client,
            HybridLogicalClock clock,
            Supplier<String> topologyHeader,
            java.time.Duration timeout,
            Throttle throttle,
            RepairStats stats) {
        this.client = client;
        this.clock = clock;
        this.topologyHeader = topologyHeader;
        this.timeoutNanos = timeout.toNanos();
        this.throttle = throttle;
        this.stats = stats;
    }

    HybridLogicalClock clock() {
        return clock;
    }

    /** One call in flight. */
    final class Call {
        private final String member;
        private final CompletableFuture<PeerResponse> answer = new CompletableFuture<>();
        private final boolean hashTraffic;
        private final long timeoutNanos;

        private Call(String member, boolean hashTraffic, long timeoutNanos) {
            this.member = member;
            this.hashTraffic = hashTraffic;
            this.timeoutNanos = timeoutNanos;
        }

        /** The body of a 200 answer; RepairException otherwise. */
        byte[] body() throws RepairException {
            PeerResponse r;
            try {
                r = answer.get(timeoutNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RepairException(member, "interrupted");
            } catch (ExecutionException e) {
                throw new RepairException(member, e.getCause().getMessage());
            } catch (TimeoutException e) {
                throw new RepairException(member, "no answer in time");
            }
            if (r.status() != 200) {
                String why = new String(r.body(), StandardCharsets.UTF_8).strip();
                throw new RepairException(member, "answered " + r.status() + (why.isEmpty() ? "" : ": " + why));
            }
            if (hashTraffic) {
                stats.hashBytes.add(r.body().length);
            }
            throttle.pace(r.body().length);
            return r.body();
        }
    }

    /** The query parameter of {@link #withAsOf}, as one-nio's getParameter takes it. */
    static final String AS_OF = "asOf=";

    /** Sends a call to a member; wait for it with {@link Call#body()}. */
    Call start(String member, String method, String path, String ringId, byte[] body, boolean hashTraffic) {
        return start(member, method, path, ringId, body, hashTraffic, timeoutNanos);
    }

    private Call start(
            String member,
            String method,
            String path,
            String ringId,
            byte[] body,
            boolean hashTraffic,
            long timeoutNanos) {
        Call call = new Call(member, hashTraffic, timeoutNanos);
        if (body != null) {
            if (hashTraffic) {
                stats.hashBytes.add(body.length);
            }
            throttle.pace(body.length);
        }
        String target = ringId == null ? path : path + "?ring=" + ringId;
        client.send(
                member,
                new PeerRequest(method, target, clock.now(), 0, body, topologyHeader.get()),
                System.nanoTime() + timeoutNanos,
                new PeerCallback() {
                    @Override
                    public void completed(PeerResponse response) {
                        // Clocks merge where records move (fetched records); comparing hashes, or asking a
                        // starting member's state, teaches no clock (two idle members keep their own).
                        if (response.clock() > 0 && FETCH.equals(path)) {
                            clock.observe(response.clock());
                        }
                        call.answer.complete(response);
                    }

                    @Override
                    public void failed(boolean timeout, String reason) {
                        call.answer.completeExceptionally(
                                new IllegalStateException(timeout ? "no answer in time" : reason));
                    }
                });
        return call;
    }

    Call summaries(String member, String ringId, long asOf, List<RepairWire.Query> queries) {
        return start(member, "POST", HASHES, withAsOf(ringId, asOf), RepairWire.queries(queries), true);
    }

    Call listings(String member, String ringId, long asOf, int cap, List<RepairWire.Query> queries) {
        return start(member, "POST", DIGESTS, withAsOf(ringId, asOf), RepairWire.digestQuery(cap, queries), true);
    }

    /**
     * The ring parameter followed by {@code &asOf=}: the moment the member's digests are read as of
     * ({@link RangeSummaries.AsOf}). A member of a version before the parameter ignores it and reads its digests now.
     */
    private static String withAsOf(String ringId, long asOf) {
        return ringId + "&" + AS_OF + asOf;
    }

    Call fetch(String member, String ringId, List<byte[]> keys) {
        return start(member, "POST", FETCH, ringId, RepairWire.keys(keys), false);
    }

    Call apply(String member, String ringId, RecordBatch batch) {
        return start(member, "PUT", RECORDS, ringId, batch.toBytes(), false);
    }

    Call done(String member, String ringId, long repairedAt, List<Integer> arcs) {
        return start(member, "POST", DONE, ringId, RepairWire.done(repairedAt, arcs), false);
    }

    /** A member's state: a short deadline (it scans nothing), a starting node asks it every 100 ms. */
    Call state(String member) {
        return start(member, "GET", STATE, null, null, false, TimeUnit.SECONDS.toNanos(1));
    }
}
