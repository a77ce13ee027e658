package dev.dht.node.movement;

import java.time.Duration;

/**
 * How a node streams during a move (docs/cluster.md, "What a member of S sends").
 *
 * @param rateBytesPerSecond bytes of records this node sends per second at most (--move-rate)
 * @param batchBytes         a batch to one receiver is sent once it holds this many bytes (--move-batch)
 * @param pollInterval       how often a moving node asks the other members for their state
 * @param requestTimeout     deadline of every movement call (the node's --request-timeout)
 */
public record MovementSettings(
        long rateBytesPerSecond, int batchBytes, Duration pollInterval, Duration requestTimeout) {
    public static final Duration DEFAULT_POLL = Duration.ofMillis(200);
}
