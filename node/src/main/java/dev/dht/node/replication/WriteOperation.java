package dev.dht.node.replication;

import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.replication.choice.PeerHealth;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.StoreException;
import dev.dht.node.storage.WriteOutcome;

/**
 * One coordinated PUT or DELETE: the record goes to every replica of the {@link Topology.Plan} at once (during a
 * move, the key's replicas in both member sets, each once); the client gets its answer after {@code ack} stored
 * it in each set, or 504 once a set can no longer reach its {@code ack} (a refused connection fails at once, a
 * silent peer at the deadline). A replica that missed the write gets a hint. An answer that comes after the
 * deadline does not count: a write older than its deadline is never acknowledged, which is what lets a move's
 * barrier wait a bounded time for writes coordinated under an older topology (docs/cluster.md, "Fencing").
 *
 * <p>A replica that already holds a newer record (409: a node whose clock runs ahead wrote it) means the client's
 * write would be lost: the coordinator merges that timestamp into its clock and writes again, to every replica,
 * with a newer timestamp (a new round; answers of older rounds are ignored). After {@link #MAX_ROUNDS} it gives up
 * on that replica as failed. A conflict that arrives after the client was answered starts no round: the newer
 * record may be a write the client made after this one was acknowledged (this write's copy reached that replica
 * late), and writing this one again, newer, would undo it.
 */
final class WriteOperation extends CoordinatedOperation {
    static final int MAX_ROUNDS = 3;
    /** A replica answered with a version stamped beyond the clock's bound (for the failure's reason). */
    private volatile boolean beyondClockBound;

    private final Topology.Plan plan;
    private final String success;
    private Record record;
    private int round;
    private Topology.Count count;

    WriteOperation(
            Coordinator c,
            byte[] key,
            Topology.Plan plan,
            String topology,
            long deadline,
            Responder responder,
            Record record,
            String success) {
        super(c, key, plan, topology, deadline, responder);
        this.plan = plan;
        this.count = plan.count();
        this.record = record;
        this.success = success;
    }

    void start() {
        send(0, record);
    }

    /** Remote calls first (the network starts), then the local copy while they travel. */
    private void send(int r, Record rec) {
        PeerRequest request = Protocol.write(target, rec, c.clock.now(), topology);
        for (int i = 0; i < urls.length; i++) {
            if (i != selfSlot) {
                PeerHealth peer = c.choice.peer(urls[i]); // every answer, or silence, tells reads about the peer
                c.client.send(urls[i], request, deadline, new Reply(r, i, peer, peer.sent(System.nanoTime())));
            }
        }
        if (selfSlot >= 0 && !c.store.applyAtEndOfPass(key, rec, new OwnCopy(r, rec))) {
            storeOwnCopy(r, rec); // not on a selector (a conflict round started from a replica's answer)
        }
    }

    /**
     * The coordinator's own copy, written where waiting is allowed (a worker, or the peer client's I/O thread in a
     * conflict round). A write the store refuses (a full disk) is this replica failing, as on the selector path.
     */
    private void storeOwnCopy(int r, Record rec) {
        Record current;
        try {
            if (c.store.applyIfNewer(key, rec)) {
                current = rec;
            } else {
                current = c.store.get(key);
            }
        } catch (StoreException e) {
            failed(r, selfSlot);
            return;
        }
        if (current == rec) {
            stored(r, selfSlot);
        } else {
            ownCopyNotNewer(r, rec, current);
        }
    }

    private void ownCopyNotNewer(int r, Record rec, Record current) {
        if (current == null || current.equals(rec)) {
            stored(r, selfSlot); // already there
        } else {
            conflict(r, selfSlot, current.timestamp());
        }
    }

    /** The own copy in the selector pass's write group: it counts as stored once the group is applied. */
    private final class OwnCopy implements WriteOutcome {
        private final int r;
        private final Record rec;

        OwnCopy(int r, Record rec) {
            this.r = r;
            this.rec = rec;
        }

        @Override
        public void applied() {
            stored(r, selfSlot);
        }

        @Override
        public void notNewer(Record current) {
            ownCopyNotNewer(r, rec, current);
        }

        @Override
        public void wouldBlock() {
            if (!c.slowPath.trySubmit(() -> storeOwnCopy(r, rec))) {
                WriteOperation.this.failed(r, selfSlot); // the workers are saturated: this replica failed the write
            }
        }

        @Override
        public void failed(StoreException e) {
            WriteOperation.this.failed(r, selfSlot);
        }
    }

    private final class Reply implements PeerCallback {
        private final int r;
        private final int slot;
        private final PeerHealth peer;
        private final long sentAt;

        Reply(int r, int slot, PeerHealth peer, long sentAt) {
            this.r = r;
            this.slot = slot;
            this.peer = peer;
            this.sentAt = sentAt;
        }

        @Override
        public void completed(PeerResponse response) {
            peer.answered(sentAt, System.nanoTime(), false, response.status() >= 500);
            if (response.clock() > 0) {
                c.clock.observe(response.clock());
            }
            if (Protocol.writeStored(response)) {
                stored(r, slot);
            } else if (response.status() == Protocol.CONFLICT) {
                conflict(r, slot, response.timestamp());
            } else {
                WriteOperation.this.failed(
                        r, slot); // 503 (overloaded, shutting down) or 4xx/5xx: this replica did not store it
            }
        }

        @Override
        public void failed(boolean timeout, String reason) {
            peer.failed(System.nanoTime());
            WriteOperation.this.failed(r, slot);
        }
    }

    private void stored(int r, int slot) {
        if (System.nanoTime() - deadline > 0) {
            lost(r, slot, false); // stored, but too late to count (see the class comment): no hint needed
            return;
        }
        Responder answer = null;
        synchronized (this) {
            if (r == round && count.ok(slot)) {
                answer = responder;
                responder = null;
            }
        }
        if (answer != null) {
            answer.send(Responses.empty(success));
        }
    }

    private void failed(int r, int slot) {
        lost(r, slot, true);
    }

    private void lost(int r, int slot, boolean hint) {
        Responder answer = null;
        Record missed;
        String needed;
        synchronized (this) {
            if (r != round) {
                return;
            }
            missed = record;
            needed = count.needed();
            if (count.fail(slot)) {
                answer = responder;
                responder = null;
            }
        }
        if (hint && slot != selfSlot) {
            c.hints.store(urls[slot], key, missed);
        }
        if (answer != null) {
            answer.fail(
                    Responses.GATEWAY_TIMEOUT,
                    "not enough replicas: fewer than " + needed
                            + " stored the write in time"
                            + (beyondClockBound
                                    ? " (a replica holds a version of this key "
                                            + "stamped further ahead than --max-clock-ahead, which no write can overtake yet)"
                                    : ""));
        }
    }

    private void conflict(int r, int slot, long newerTimestamp) {
        if (!c.clock.observe(newerTimestamp)) {
            // stamped beyond the clock's bound: no later round could win, and a hint would not either
            beyondClockBound = true;
            lost(r, slot, false);
            return;
        }
        Record next;
        synchronized (this) {
            if (r != round || responder == null) {
                return; // an older round, or the client has its answer: the newer record stands
            }
            if (round + 1 >= MAX_ROUNDS) {
                next = null;
            } else {
                round++;
                count = plan.count();
                record = record.withTimestamp(c.clock.now());
                next = record;
            }
        }
        if (next == null) {
            failed(r, slot);
        } else {
            send(r + 1, next);
        }
    }
}
