package dev.dht.node.config;

import java.time.Duration;

/**
 * Settings of the replication machinery beyond ack/from: hinted handoff, data movement when the members change,
 * and the test-only clock skew.
 *
 * @param hints         hinted handoff on/off (read-repair tests switch it off so that only read repair heals)
 * @param hintMaxAge    hints older than this are dropped instead of delivered
 * @param hintMaxBytes  bound on the bytes of stored hints; beyond it new hints are dropped
 * @param hintInterval  how often pending hints are offered to their peers
 * @param clockOffsetMs TEST ONLY: signed milliseconds added to this node's physical clock (simulated pod skew)
 * @param moveRate      bytes of records a node sends per second at most while a move streams (0: unthrottled)
 * @param moveBatch     bytes per batch of streamed records to one receiver
 * @param repairInterval how often each replica set is repaired (zero: only on request)
 * @param repairRate    bytes per second of repair and rebuild traffic a node moves at most (0: unthrottled)
 */
public record ClusterSettings(boolean hints, Duration hintMaxAge, long hintMaxBytes, Duration hintInterval,
                              long clockOffsetMs, long moveRate, int moveBatch, Duration repairInterval,
                              long repairRate) {

    public static final Duration DEFAULT_HINT_MAX_AGE = Duration.ofHours(3);
    public static final long DEFAULT_HINT_MAX_BYTES = 256L << 20;
    public static final Duration DEFAULT_HINT_INTERVAL = Duration.ofSeconds(1);
    public static final long DEFAULT_MOVE_RATE = 8L << 20;
    public static final int DEFAULT_MOVE_BATCH = 256 << 10;
    public static final Duration DEFAULT_REPAIR_INTERVAL = Duration.ofHours(6);
    public static final long DEFAULT_REPAIR_RATE = 4L << 20;

    public static ClusterSettings defaults() {
        return new ClusterSettings(true, DEFAULT_HINT_MAX_AGE, DEFAULT_HINT_MAX_BYTES, DEFAULT_HINT_INTERVAL, 0,
                DEFAULT_MOVE_RATE, DEFAULT_MOVE_BATCH, DEFAULT_REPAIR_INTERVAL, DEFAULT_REPAIR_RATE);
    }

    public ClusterSettings withHints(boolean on) {
        return new ClusterSettings(on, hintMaxAge, hintMaxBytes, hintInterval, clockOffsetMs, moveRate, moveBatch,
                repairInterval, repairRate);
    }

    public ClusterSettings withHintBounds(Duration maxAge, long maxBytes, Duration interval) {
        return new ClusterSettings(hints, maxAge, maxBytes, interval, clockOffsetMs, moveRate, moveBatch,
                repairInterval, repairRate);
    }

    public ClusterSettings withClockOffset(long ms) {
        return new ClusterSettings(hints, hintMaxAge, hintMaxBytes, hintInterval, ms, moveRate, moveBatch,
                repairInterval, repairRate);
    }

    public ClusterSettings withMovement(long rate, int batch) {
        return new ClusterSettings(hints, hintMaxAge, hintMaxBytes, hintInterval, clockOffsetMs, rate, batch,
                repairInterval, repairRate);
    }

    public ClusterSettings withRepair(Duration interval, long rate) {
        return new ClusterSettings(hints, hintMaxAge, hintMaxBytes, hintInterval, clockOffsetMs, moveRate, moveBatch,
                interval, rate);
    }
}
