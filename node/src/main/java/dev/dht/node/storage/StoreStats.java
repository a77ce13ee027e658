package dev.dht.node.storage;

/**
 * A snapshot of storage figures for /metrics.
 *
 * @param memtableBytes          rocksdb.cur-size-all-mem-tables
 * @param pendingCompactionBytes rocksdb.estimate-pending-compaction-bytes
 * @param liveSstBytes           rocksdb.live-sst-files-size
 * @param estimatedKeys          rocksdb.estimate-num-keys (tombstones and overwrites included)
 * @param blockCacheHits         ticker BLOCK_CACHE_HIT
 * @param blockCacheMisses       ticker BLOCK_CACHE_MISS
 * @param blockCacheUsageBytes   rocksdb.block-cache-usage
 * @param writeStopped           rocksdb.is-write-stopped (1 = writes stalled)
 * @param openCursors            range scans in progress
 * @param flushWriteBytes        ticker FLUSH_WRITE_BYTES (table bytes memtable flushes wrote since start)
 * @param compactionWriteBytes   ticker COMPACT_WRITE_BYTES (table bytes compactions wrote since start)
 */
public record StoreStats(
        long memtableBytes,
        long pendingCompactionBytes,
        long liveSstBytes,
        long estimatedKeys,
        long blockCacheHits,
        long blockCacheMisses,
        long blockCacheUsageBytes,
        long writeStopped,
        int openCursors,
        long flushWriteBytes,
        long compactionWriteBytes) {

    /** Hits / (hits + misses), 0 before the first block read. */
    public double blockCacheHitRatio() {
        long total = blockCacheHits + blockCacheMisses;
        return total == 0 ? 0.0 : (double) blockCacheHits / total;
    }
}
