package dev.dht.node.drain;

import dev.dht.node.config.Units;
import dev.dht.node.http.DhtServer;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first step of a graceful stop, before the node stops listening (docs/operations.md, "Planned disruptions"):
 * for {@code --drain-time} the member keeps serving every request in full, while {@code /v0/status} answers 503 and
 * every answer to a client ends its connection ({@link DhtServer#leave}). A client that keeps its connection alive
 * sends its next request once more and is then told to reconnect, which a Service or balancer that has taken the
 * member out sends elsewhere; so when the node then stops listening, only idle connections are left to close.
 *
 * <p>On Kubernetes the pod's preStop pause runs first, while the endpoints drop the terminating pod; the drain
 * then moves the kept-alive connections, and the grace period covers both. Without a drain time (the default) the
 * node stops at once, as a process run by hand or in tests should.
 */
public final class Drain {
    private static final Logger log = LoggerFactory.getLogger(Drain.class);

    private Drain() {}

    /** Drains the server for {@code time} (returns at once for zero). */
    public static void run(DhtServer server, Duration time) {
        if (time.isZero() || time.isNegative()) {
            return;
        }
        log.info(
                "draining for {}: not ready, every client connection closes after its next answer",
                Units.formatDuration(time));
        server.leave();
        try {
            Thread.sleep(time.toMillis()); // the clients' next requests come in meanwhile; nothing to wait for
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
