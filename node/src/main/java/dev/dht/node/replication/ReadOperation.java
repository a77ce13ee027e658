package dev.dht.node.replication;

import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.replication.choice.PeerHealth;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import dev.dht.node.storage.StoreException;
import dev.dht.node.storage.WriteOutcome;

/**
 * One coordinated GET. In a stable topology it asks {@code ack} replicas (its own copy first, then others chosen by
 * the key, so a key's reads go to the same replicas and their caches, responsive ones before slow and avoided
 * ones: {@link dev.dht.node.replication.choice.ReplicaChoice}), not all {@code from}: any {@code ack} of them meet
 * every write acknowledged by {@code from - ack + 1}, which quorum reads and writes are, so the answer is the same
 * and a read costs half the replica calls at 2/3. A replica that fails is replaced by the next one; if one asked
 * has not answered by its backup delay (about its recent p99: a replica that went silent, a slow disk), the rest
 * are asked too. Now and then a read also asks an avoided replica, not waiting for it (a probe), so that it is
 * seen answering again. During a move (two replica sets) it asks every replica of both sets.
 *
 * <p>It answers from the freshest of the answers so far once {@code ack} answered in each served set (last write
 * wins; a replica that never saw the key ranks below anything; a tombstone means 404; an empty value is a value),
 * or 504 once a set can no longer reach its {@code ack}. When every replica asked has answered or failed, the
 * stale ones among those that answered get the newest record in the background (read repair; a replica not asked
 * is repaired by a later read that asks it, or by hinted handoff).
 */
final class ReadOperation extends CoordinatedOperation {
    private final Topology.Count count;
    private final Record[] answers;
    private final boolean[] answered;
    /** Slots in the order they are asked; the first {@code asked} of them have been. */
    private final int[] order;

    private int asked;
    /** The replica asked as a probe, not waited for (-1: none). */
    private int probeSlot = -1;
    /** Per slot: asked as a backup (null until a backup is sent). */
    private boolean[] backups;

    private int received;
    private int failures;
    private PeerRequest request;

    ReadOperation(
            Coordinator c,
            byte[] key,
            long hash,
            Topology.Plan plan,
            String topology,
            long deadline,
            Responder responder) {
        super(c, key, plan, topology, deadline, responder);
        this.count = plan.count();
        this.answers = new Record[urls.length];
        this.answered = new boolean[urls.length];
        this.order = askOrder(urls.length, selfSlot, hash);
        // a move serves two sets whose quorums overlap the replicas in ways not worth special-casing: ask all
        this.asked = plan.servesOneSet() ? Math.min(plan.ackS, urls.length) : urls.length;
        if (asked < urls.length) {
            long now = System.nanoTime();
            c.choice.prefer(urls, order, selfSlot >= 0 ? 1 : 0, now);
            probeSlot = c.choice.probe(urls, order, asked, now);
            if (probeSlot >= 0) {
                asked++;
            }
        }
    }

    /** The own slot first (its copy costs no call), then the others from a key-chosen one on, in ring order. */
    static int[] askOrder(int replicas, int selfSlot, long hash) {
        int[] order = new int[replicas];
        int n = 0;
        if (selfSlot >= 0) {
            order[n++] = selfSlot;
        }
        int others = replicas - n;
        int first = others == 0 ? 0 : (int) Long.remainderUnsigned(hash >>> 17, others);
        for (int i = 0; i < others; i++) {
            int k = (first + i) % others; // the k-th slot that is not selfSlot
            order[n++] = selfSlot >= 0 && k >= selfSlot ? k + 1 : k;
        }
        return order;
    }

    void start() {
        request = Protocol.read(target, c.clock.now(), topology);
        int initial = asked; // read before any send: a failing send asks the next replica, and so moves it
        boolean askSelf = false;
        for (int i = 0; i < initial; i++) {
            if (order[i] == selfSlot) {
                askSelf = true;
            } else {
                ask(order[i], initial < urls.length && order[i] != probeSlot);
            }
        }
        if (askSelf && c.readGate.notServing() != null) {
            failure(selfSlot); // rebuilding: the own copy may miss acknowledged writes, ask another replica
        } else if (askSelf) {
            Record own = c.store.getIfInMemory(key);
            if (own != Store.NOT_IN_MEMORY) {
                answer(selfSlot, own);
            } else if (!c.slowPath.trySubmit(() -> answer(selfSlot, c.store.get(key)))) {
                failure(selfSlot); // only the disk has it and the workers are saturated
            }
        }
    }

    /** Sends the read to a remote replica; {@code watch}: replicas are held back, ask them if this one is slow. */
    private void ask(int slot, boolean watch) {
        PeerHealth peer = c.choice.peer(urls[slot]);
        boolean probe = slot == probeSlot;
        long sentAt = peer.sent(System.nanoTime());
        peer.readSent();
        PeerCallback callback = new PeerCallback() {
            @Override
            public void completed(PeerResponse response) {
                peer.answered(sentAt, System.nanoTime(), true, response.status() >= 500);
                if (probe) {
                    peer.probeDone();
                }
                if (response.clock() > 0) {
                    c.clock.observe(response.clock());
                }
                Record r;
                try {
                    r = Protocol.readAnswer(response);
                } catch (RuntimeException e) {
                    failed(false, e.getMessage()); // 503 (overloaded), 421 (older topology), garbage
                    return;
                }
                answer(slot, r);
            }

            @Override
            public void failed(boolean timeout, String reason) {
                peer.failed(System.nanoTime());
                if (probe) {
                    peer.probeDone();
                }
                failure(slot);
            }

            @Override
            public void slow() {
                if (askTheRest()) {
                    peer.backedUp();
                }
            }
        };
        if (watch) {
            c.client.send(urls[slot], request, deadline, sentAt + peer.backupDelayNanos(), callback);
        } else {
            c.client.send(urls[slot], request, deadline, callback);
        }
    }

    /**
     * A replica asked is slow to answer and the quorum is still short: ask every one not asked yet. Returns whether
     * it asked any (a backup).
     */
    private boolean askTheRest() {
        int from;
        int to;
        synchronized (this) {
            if (responder == null || asked == urls.length) {
                return false;
            }
            from = asked;
            to = urls.length;
            asked = to;
            backups = new boolean[urls.length];
            for (int i = from; i < to; i++) {
                backups[order[i]] = true;
            }
        }
        c.choice.backupSent();
        askSlots(from, to);
        return true;
    }

    private void askSlots(int from, int to) {
        for (int i = from; i < to; i++) {
            ask(order[i], to < urls.length); // never the own slot: it is first in the order, and always asked
        }
    }

    private void answer(int slot, Record record) {
        Responder answer = null;
        Record newest = null;
        boolean complete;
        synchronized (this) {
            answers[slot] = record;
            answered[slot] = true;
            received++;
            if (count.ok(slot) && responder != null) {
                answer = responder;
                responder = null;
                newest = newest();
                if (backups != null && backups[slot]) {
                    c.choice.backupWon();
                }
            }
            complete = received + failures == asked;
        }
        if (answer != null) {
            if (newest == null || newest.isTombstone()) {
                answer.fail(Responses.NOT_FOUND, "no value for this id");
            } else {
                answer.send(Responses.value(newest.encoded(), newest.valueOffset(), newest.valueLength()));
            }
        }
        if (complete) {
            repair();
        }
    }

    private void failure(int slot) {
        Responder answer = null;
        boolean complete;
        String needed;
        int next = -1;
        synchronized (this) {
            needed = count.needed();
            failures++;
            if (count.fail(slot) && responder != null) {
                answer = responder;
                responder = null;
            } else if (responder != null && asked < urls.length && slot != probeSlot) {
                // the quorum is still reachable: a replica not asked yet takes the failed one's place (not a
                // probe's: the read never counted on it)
                next = asked++;
            }
            complete = received + failures == asked;
        }
        if (next >= 0) {
            askSlots(next, next + 1);
        }
        if (answer != null) {
            answer.fail(Responses.GATEWAY_TIMEOUT, "not enough replicas: fewer than " + needed + " answered in time");
        }
        if (complete) {
            repair();
        }
    }

    /** The freshest record among the answers so far; null if none has the key. Caller holds the lock. */
    private Record newest() {
        Record best = null;
        for (int i = 0; i < answers.length; i++) {
            Record r = answers[i];
            if (answered[i] && r != null && (best == null || r.supersedes(best))) {
                best = r;
            }
        }
        return best;
    }

    /** Every replica answered or failed: bring the stale ones that answered up to the newest record. */
    private void repair() {
        Record newest;
        synchronized (this) {
            newest = newest();
        }
        if (newest == null) {
            return;
        }
        for (int i = 0; i < urls.length; i++) {
            Record r = answers[i];
            if (answered[i] && (r == null || newest.supersedes(r))) {
                if (i == selfSlot) {
                    repairOwnCopy(newest);
                } else {
                    c.client.send(
                            urls[i],
                            Protocol.write(target, newest, c.clock.now(), topology),
                            System.nanoTime() + c.timeoutNanos,
                            new PeerCallback() {
                                @Override
                                public void completed(PeerResponse response) {
                                    if (response.clock() > 0) {
                                        c.clock.observe(response.clock());
                                    }
                                    if (Protocol.writeStored(response)) {
                                        c.readRepairs.increment();
                                    }
                                }

                                @Override
                                public void failed(boolean timeout, String reason) {
                                    // the next read (or a hint) tries again
                                }
                            });
                }
            }
        }
    }

    /** The own copy is stale: write the newest record, in the pass's group when on a selector. */
    private void repairOwnCopy(Record newest) {
        Runnable blocking = () -> {
            try {
                if (c.store.applyIfNewer(key, newest)) {
                    c.readRepairs.increment();
                }
            } catch (StoreException e) {
                // refused (a full disk): a later read tries again; this may run on the peer client's I/O thread
            }
        };
        boolean grouped = c.store.applyAtEndOfPass(key, newest, new WriteOutcome() {
            @Override
            public void applied() {
                c.readRepairs.increment();
            }

            @Override
            public void notNewer(Record current) {
                // a newer write got there first: nothing to repair
            }

            @Override
            public void wouldBlock() {
                c.slowPath.trySubmit(blocking); // if the workers are saturated, a later read repairs it
            }

            @Override
            public void failed(StoreException e) {
                // a later read tries again
            }
        });
        if (!grouped) {
            blocking.run();
        }
    }
}
