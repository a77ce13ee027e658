package dev.dht.node.repair;

import java.util.concurrent.atomic.LongAdder;

/** Repair's counters (for /metrics and /v0/admin/repair) and what the repair thread is doing now. */
final class RepairStats {
    final LongAdder rangesCompared = new LongAdder();
    final LongAdder rangesOutOfSync = new LongAdder();
    final LongAdder keysRepaired = new LongAdder();
    final LongAdder bytesRepaired = new LongAdder();
    /** Bytes of span queries, summaries and digests sent and received: the cost of finding the differences. */
    final LongAdder hashBytes = new LongAdder();
    /** Keys whose newest version was too recent to judge (a write possibly in flight): left to the next round. */
    final LongAdder keysDeferred = new LongAdder();

    final LongAdder roundsCompleted = new LongAdder();
    final LongAdder roundsFailed = new LongAdder();
    /** Records a repair call brought to this node (as a replica behind, or a rebuild's pull). */
    final LongAdder keysReceived = new LongAdder();

    /** The round in progress on this node (null: none), and how far it is. */
    volatile String running;

    volatile int runningArcsDone;
    volatile int runningArcsTotal;
    /** Why the last round stopped early, or what it waits for (null when nothing is wrong). */
    volatile String problem;
    /** Wall time of the last round this node completed (ms), and its figures. */
    volatile long lastRoundAt;

    volatile long lastRoundRangesOutOfSync;
    volatile long lastRoundKeysRepaired;
    volatile long lastRoundMillis;
}
