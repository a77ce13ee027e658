package dev.dht.node.config;

import io.soabase.recordbuilder.core.RecordBuilder;
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
@RecordBuilder
public record ClusterSettings(
        boolean hints,
        Duration hintMaxAge,
        long hintMaxBytes,
        Duration hintInterval,
        long clockOffsetMs,
        long moveRate,
        int moveBatch,
        Duration repairInterval,
        long repairRate)
        implements ClusterSettingsBuilder.With {

    // the defaults are NodeOption's
    public static final Duration DEFAULT_HINT_MAX_AGE = NodeOption.HINT_MAX_AGE.durationDefault();
    public static final long DEFAULT_HINT_MAX_BYTES = NodeOption.HINT_MAX_BYTES.sizeDefault();
    public static final Duration DEFAULT_HINT_INTERVAL = NodeOption.HINT_INTERVAL.durationDefault();
    public static final long DEFAULT_MOVE_RATE = NodeOption.MOVE_RATE.sizeDefault();
    public static final int DEFAULT_MOVE_BATCH = (int) NodeOption.MOVE_BATCH.sizeDefault();
    public static final Duration DEFAULT_REPAIR_INTERVAL = NodeOption.REPAIR_INTERVAL.durationDefault();
    public static final long DEFAULT_REPAIR_RATE = NodeOption.REPAIR_RATE.sizeDefault();

    public static ClusterSettings defaults() {
        return new ClusterSettings(
                NodeOption.HINTS.boolDefault(),
                DEFAULT_HINT_MAX_AGE,
                DEFAULT_HINT_MAX_BYTES,
                DEFAULT_HINT_INTERVAL,
                NodeOption.CLOCK_OFFSET_MS.longDefault(),
                DEFAULT_MOVE_RATE,
                DEFAULT_MOVE_BATCH,
                DEFAULT_REPAIR_INTERVAL,
                DEFAULT_REPAIR_RATE);
    }

    public ClusterSettings withHintBounds(Duration maxAge, long maxBytes, Duration interval) {
        return with().hintMaxAge(maxAge)
                .hintMaxBytes(maxBytes)
                .hintInterval(interval)
                .build();
    }

    public ClusterSettings withMovement(long rate, int batch) {
        return with().moveRate(rate).moveBatch(batch).build();
    }

    public ClusterSettings withRepair(Duration interval, long rate) {
        return with().repairInterval(interval).repairRate(rate).build();
    }
}
