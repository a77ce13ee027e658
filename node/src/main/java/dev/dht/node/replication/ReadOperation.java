package dev.dht.node.replication;

import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import dev.dht.node.storage.StoreException;
import dev.dht.node.storage.WriteOutcome;

/**
 * One coordinated GET: asks every replica of the {@link Topology.Plan} at once, answers from the freshest of the
 * answers so far once {@code ack} answered in each served set (last write wins; a replica that never saw the key
 * ranks below anything; a tombstone means 404; an empty value is a value), or 504 once a set can no longer reach
 * its {@code ack}. When every replica has answered or failed, the stale ones among those that answered get the
 * newest record in the background (read repair, over both sets during a move).
 */
final class ReadOperation {
    private final Coordinator c;
    private final byte[] key;
    private final String target;
    private final String[] urls;
    private final int selfSlot;
    private final String topology;
    private final Topology.Count count;
    private final long deadline;
    private Responder responder; // null once answered
    private final Record[] answers;
    private final boolean[] answered;
    private int received;
    private int failures;

    ReadOperation(Coordinator c, byte[] key, Topology.Plan plan, String topology, long deadline,
                  Responder responder) {
        this.c = c;
        this.key = key;
        this.target = Protocol.entityTarget(key);
        this.urls = plan.urls;
        this.selfSlot = plan.selfSlot;
        this.topology = topology;
        this.count = plan.count();
        this.deadline = deadline;
        this.responder = responder;
        this.answers = new Record[urls.length];
        this.answered = new boolean[urls.length];
    }

    void start() {
        PeerRequest request = Protocol.read(target, c.clock.now(), topology);
        for (int i = 0; i < urls.length; i++) {
            if (i != selfSlot) {
                int slot = i;
                c.client.send(urls[i], request, deadline, new PeerCallback() {
                    @Override
                    public void completed(PeerResponse response) {
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
                        failure(slot);
                    }
                });
            }
        }
        if (selfSlot >= 0) {
            Record own = c.store.getIfInMemory(key);
            if (own != Store.NOT_IN_MEMORY) {
                answer(selfSlot, own);
            } else if (!c.slowPath.trySubmit(() -> answer(selfSlot, c.store.get(key)))) {
                failure(selfSlot); // only the disk has it and the workers are saturated
            }
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
            }
            complete = received + failures == urls.length;
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
        synchronized (this) {
            needed = count.needed();
            failures++;
            if (count.fail(slot) && responder != null) {
                answer = responder;
                responder = null;
            }
            complete = received + failures == urls.length;
        }
        if (answer != null) {
            answer.fail(Responses.GATEWAY_TIMEOUT, "not enough replicas: fewer than " + needed
                    + " answered in time");
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
                    c.client.send(urls[i], Protocol.write(target, newest, c.clock.now(), topology),
                            System.nanoTime() + c.timeoutNanos, new PeerCallback() {
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
            if (c.store.applyIfNewer(key, newest)) {
                c.readRepairs.increment();
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
