package dev.dht.node.api;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.http.EntityHandler;
import dev.dht.node.http.EntityRequest;
import dev.dht.node.http.InlineResponder;
import dev.dht.node.http.Responder;
import dev.dht.node.http.Responses;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;

/**
 * /v0/entity on the local store, for a key whose only replica is this node (a single node, or replicas=1/1
 * landing here); the cluster coordinator delegates to it then. Writes are timestamped by the hybrid logical clock
 * and go through the store's last-write-wins apply, the same path replicas, hints and read repair will use.
 */
public final class LocalEntityHandler implements EntityHandler {
    private final Store store;
    private final HybridLogicalClock clock;

    public LocalEntityHandler(Store store, HybridLogicalClock clock) {
        this.store = store;
        this.clock = clock;
    }

    @Override
    public void handle(EntityRequest request, Responder responder) {
        switch (request.op()) {
            case GET -> answerGet(store.get(request.key()), responder);
            case PUT ->
                answerWrite(
                        write(request.key(), Record.value(clock.now(), request.body())), Responses.CREATED, responder);
            case DELETE ->
                answerWrite(write(request.key(), Record.tombstone(clock.now())), Responses.ACCEPTED, responder);
        }
    }

    /**
     * The same answers without waiting: a GET from memory (declined if only the disk has the record); a PUT or
     * DELETE joins this selector pass's write group and is answered when the group is applied at the end of the
     * pass (one WAL write for the whole pass), or goes to a worker then if it would have had to wait.
     */
    @Override
    public boolean tryInline(EntityRequest request, InlineResponder responder) {
        return switch (request.op()) {
            case GET -> {
                Record record = store.getIfInMemory(request.key());
                if (record == Store.NOT_IN_MEMORY) {
                    yield false;
                }
                answerGet(record, responder);
                yield true;
            }
            case PUT ->
                tryWrite(request.key(), Record.value(clock.now(), request.body()), Responses.CREATED, responder);
            case DELETE -> tryWrite(request.key(), Record.tombstone(clock.now()), Responses.ACCEPTED, responder);
        };
    }

    private static void answerGet(Record record, Responder responder) {
        if (record == null || record.isTombstone()) {
            responder.fail(Responses.NOT_FOUND, "no value for this id");
        } else {
            responder.send(Responses.value(record.encoded(), record.valueOffset(), record.valueLength()));
        }
    }

    private boolean tryWrite(byte[] key, Record record, String status, InlineResponder responder) {
        if (store.applyAtEndOfPass(key, record, new PassWrite(status, responder))) {
            return true;
        }
        // Not on a selector loop (another thread's answer started this pipelined request): one write, no waiting.
        // NOT_NEWER goes to the worker too: its retry loop below is the rare path (a clock that stepped back).
        if (store.tryApplyIfNewer(key, record) != Store.TryApply.APPLIED) {
            return false;
        }
        responder.send(Responses.empty(status));
        return true;
    }

    /** A client write in a pass group: answered once applied; anything else is redone by a worker. */
    private static final class PassWrite extends InlineWrite {
        private final String status;

        PassWrite(String status, InlineResponder responder) {
            super(responder);
            this.status = status;
        }

        @Override
        public void applied() {
            responder.send(Responses.empty(status));
        }

        @Override
        public void notNewer(Record current) {
            responder.toWorker(); // the clock stepped back across a restart: the worker's loop retries newer
        }
    }

    /** Attempts of a local write against newer stored records: the second one wins unless the clock refuses. */
    static final int MAX_ATTEMPTS = 3;

    /**
     * A locally coordinated write must win: its timestamp is fresh from the clock. It can only lose if the stored
     * record is newer still (the wall clock stepped back across a restart, or another node's clock ran ahead);
     * then the clock learns that timestamp and the write is retried with a newer one. Bounded: a stored record
     * stamped beyond the clock's bound (written before the bound existed) cannot be overtaken, and this returns
     * false instead of spinning (a worker once spun forever here: docs/security.md, "Clocks").
     */
    private boolean write(byte[] key, Record record) {
        Record attempt = record;
        for (int i = 0; i < MAX_ATTEMPTS; i++) {
            if (store.applyIfNewer(key, attempt)) {
                return true;
            }
            Record stored = store.get(key);
            if (stored != null && !clock.observe(stored.timestamp())) {
                return false;
            }
            attempt = attempt.withTimestamp(clock.now());
        }
        return false;
    }

    private void answerWrite(boolean written, String status, Responder responder) {
        if (written) {
            responder.send(Responses.empty(status));
        } else {
            responder.fail(
                    Responses.CONFLICT,
                    "the stored version of this key is stamped further ahead of this "
                            + "node's clock than --max-clock-ahead: it cannot be overwritten before the clock gets there");
        }
    }
}
