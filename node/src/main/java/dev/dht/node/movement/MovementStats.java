package dev.dht.node.movement;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of data movement, for {@code /v0/admin/movement} and the dht_movement_* metrics. Totals since the
 * process started, plus the figures of the scan in progress (reset when a scan starts).
 */
public final class MovementStats {
    final LongAdder recordsSent = new LongAdder();
    final LongAdder bytesSent = new LongAdder();
    final LongAdder recordsReceived = new LongAdder();
    final LongAdder bytesReceived = new LongAdder();
    final LongAdder batchesRetried = new LongAdder();
    final LongAdder cleanupDropped = new LongAdder();
    final LongAdder cleanupScanned = new LongAdder();

    /** The scan of the current move: estimated records and bytes at its start, and progress since. */
    volatile long scanEstimatedRecords;

    volatile long scanEstimatedBytes;
    volatile long scanned;
    volatile long slicesDone;
    /** True once this node's scan for the current move finished (or it has none to do). */
    volatile boolean scanFinished;
    /** What the move waits for right now (a member that does not answer, the barrier...), or null. */
    volatile String waitingFor;

    volatile boolean cleanupRunning;
    /** Totals when the current move started: the movement endpoint reports this move's figures. */
    private volatile long[] moveBase = new long[4];

    /** A new move (epoch) begins: its figures count from here. */
    void startMove() {
        moveBase = new long[] {recordsSent(), bytesSent(), recordsReceived(), bytesReceived()};
        startScan(0, 0, 0); // no scan of this move yet
    }

    public long moveRecordsSent() {
        return recordsSent() - moveBase[0];
    }

    public long moveBytesSent() {
        return bytesSent() - moveBase[1];
    }

    public long moveRecordsReceived() {
        return recordsReceived() - moveBase[2];
    }

    public long moveBytesReceived() {
        return bytesReceived() - moveBase[3];
    }

    public String waitingFor() {
        return waitingFor;
    }

    public boolean cleanupRunning() {
        return cleanupRunning;
    }

    public long slicesDone() {
        return slicesDone;
    }

    public boolean scanFinished() {
        return scanFinished;
    }

    public long recordsSent() {
        return recordsSent.sum();
    }

    public long bytesSent() {
        return bytesSent.sum();
    }

    public long recordsReceived() {
        return recordsReceived.sum();
    }

    public long bytesReceived() {
        return bytesReceived.sum();
    }

    public long cleanupDropped() {
        return cleanupDropped.sum();
    }

    public long batchesRetried() {
        return batchesRetried.sum();
    }

    void received(int records, long bytes) {
        recordsReceived.add(records);
        bytesReceived.add(bytes);
    }

    void startScan(long estimatedRecords, long estimatedBytes, long alreadyScanned) {
        scanEstimatedRecords = estimatedRecords;
        scanEstimatedBytes = estimatedBytes;
        scanned = alreadyScanned;
        slicesDone = 0;
        scanFinished = false;
    }

    /** Records still to scan: the estimate at the start less what was scanned (0 once finished). */
    public long recordsLeft() {
        return scanFinished ? 0 : Math.max(0, scanEstimatedRecords - scanned);
    }

    /** Bytes still to scan, in proportion to the records left. */
    public long bytesLeft() {
        long est = scanEstimatedRecords;
        return est <= 0 ? 0 : (long) ((double) scanEstimatedBytes * recordsLeft() / est);
    }
}
