package dev.dht.node.repair;

import java.time.Duration;

/**
 * How repair runs.
 *
 * @param interval       how often each replica set is repaired (zero: only when asked, POST /v0/admin/repair)
 * @param rate           bytes per second of repair traffic one node moves at most, hashes and records (0: no limit)
 * @param grace          --tombstone-grace
 * @param propagation    the longest a write may take to reach a replica after its timestamp (a hint's maximum age
 *                       with hints, else the request timeout): a tombstone counts as repaired only when it is older
 *                       than the repair by at least this much
 * @param requestTimeout --request-timeout: a write is delivered within it, or left to hints
 */
public record RepairSettings(
        Duration interval, long rate, Duration grace, Duration propagation, Duration requestTimeout) {
    public static final Duration DEFAULT_INTERVAL = Duration.ofHours(6);
    public static final long DEFAULT_RATE = 4L << 20;
    /** Arcs compared per step: one step's calls stay small, and progress is saved after each. */
    static final int ARCS_PER_STEP = 64;
    /** A failed round is tried again after this long (a member down, a move started). */
    static final Duration RETRY = Duration.ofSeconds(10);

    /** Deadline of one repair call: it scans part of the store, so longer than a client request's. */
    Duration callTimeout() {
        return Duration.ofMillis(Math.max(10_000, 10 * requestTimeout.toMillis()));
    }

    /** How far behind the clock a step's cutoff is: a newer version may be a write still being delivered. */
    long inFlightMillis() {
        return 2 * requestTimeout.toMillis() + 500;
    }
}
