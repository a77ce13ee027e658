package dev.dht.node.api;

import dev.dht.node.http.InlineResponder;
import dev.dht.node.http.Responses;
import dev.dht.node.storage.StoreException;
import dev.dht.node.storage.WriteOutcome;

/**
 * The outcome of a write a request tried on its selector thread put in the pass's write group
 * ({@link dev.dht.node.storage.Store#applyAtEndOfPass}): what would have had to wait goes to a worker as if
 * tryInline had declined it, a failed write is a 500. The request's handler says what "applied" and "not newer"
 * answer.
 */
public abstract class InlineWrite implements WriteOutcome {
    protected final InlineResponder responder;

    protected InlineWrite(InlineResponder responder) {
        this.responder = responder;
    }

    @Override
    public void wouldBlock() {
        responder.toWorker();
    }

    @Override
    public void failed(StoreException e) {
        responder.fail(Responses.INTERNAL_ERROR, e.getMessage()); // "write failed: <RocksDB's reason>"
    }
}
