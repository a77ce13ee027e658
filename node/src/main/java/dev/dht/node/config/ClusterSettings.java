package dev.dht.node.config;

import java.time.Duration;

/**
 * Settings of the replication machinery beyond ack/from: hinted handoff and the test-only clock skew.
 *
 * @param hints         hinted handoff on/off (read-repair tests switch it off so that only read repair heals)
 * @param hintMaxAge    hints older than this are dropped instead of delivered
 * @param hintMaxBytes  bound on the bytes of stored hints; beyond it new hints are dropped
 * @param hintInterval  how often pending hints are offered to their peers
 * @param clockOffsetMs TEST ONLY: signed milliseconds added to this node's physical clock (simulated pod skew)
 */
public record ClusterSettings(boolean hints, Duration hintMaxAge, long hintMaxBytes, Duration hintInterval,
                              long clockOffsetMs) {

    public static final Duration DEFAULT_HINT_MAX_AGE = Duration.ofHours(3);
    public static final long DEFAULT_HINT_MAX_BYTES = 256L << 20;
    public static final Duration DEFAULT_HINT_INTERVAL = Duration.ofSeconds(1);

    public static ClusterSettings defaults() {
        return new ClusterSettings(true, DEFAULT_HINT_MAX_AGE, DEFAULT_HINT_MAX_BYTES, DEFAULT_HINT_INTERVAL, 0);
    }

    public ClusterSettings withHints(boolean on) {
        return new ClusterSettings(on, hintMaxAge, hintMaxBytes, hintInterval, clockOffsetMs);
    }

    public ClusterSettings withHintBounds(Duration maxAge, long maxBytes, Duration interval) {
        return new ClusterSettings(hints, maxAge, maxBytes, interval, clockOffsetMs);
    }

    public ClusterSettings withClockOffset(long ms) {
        return new ClusterSettings(hints, hintMaxAge, hintMaxBytes, hintInterval, ms);
    }
}
