package dev.dht.node.http;

/**
 * The responder of a request tried on its selector thread ({@link EntityHandler#tryInline}). Besides answering,
 * the handler may hand the request to a worker after all, later on the same thread (e.g. when the end of the
 * selector pass finds that its write would have to wait): as if tryInline had declined it.
 */
public interface InlineResponder extends Responder {
    /** Queues the request for a worker ({@link EntityHandler#handle}); 503 at once if the queue is full. */
    void toWorker();
}
