package dev.dht.node.storage;

import io.soabase.recordbuilder.core.RecordBuilder;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;

/**
 * The RocksDB tuning knobs we compare, as one value. {@link #node} is what the node runs with; the other presets
 * exist so that the storage benchmark (dev.dht.bench.StoreBench, `make bench-storage`) can put the choice next
 * to RocksDB's defaults and to the options the seed reports used. docs/node.md has the figures that decided.
 *
 * @param name                    preset name, for reports
 * @param compaction              LEVEL or UNIVERSAL
 * @param compression             per-block compression of SST files
 * @param concurrentMemtableWrite allow_concurrent_memtable_write (RocksDB default: true)
 * @param adaptiveYield           enable_write_thread_adaptive_yield (RocksDB default: true)
 * @param autoCompactions         false = disable_auto_compactions (a seed option; never for production)
 * @param writeBuffer             write_buffer_size (memtable)
 * @param blockCache              block cache size (a HyperClockCache or an LRU cache: see hyperClockCache)
 * @param bloomBitsPerKey         SST bloom filter bits per key, 0 = none (RocksDB default: none)
 * @param memtableBloomRatio      memtable whole-key bloom size ratio, 0 = none
 * @param statistics              collect tickers (block cache hit ratio in /metrics)
 * @param maxOpenFiles            -1 = keep every SST open (a seed option)
 * @param hyperClockCache         block cache is RocksDB's HyperClockCache (lock-free lookups) instead of an LRU
 * @param blockHashIndex          data blocks carry a hash index (point lookups skip the in-block binary search)
 * @param rowCache                RocksDB row cache in bytes (whole records of hot keys: a point lookup that hits it
 *                                skips the index and data-block search), 0 = none
 * @param prepopulateOnFlush      prepopulate_block_cache=kFlushOnly on the records family: a flush puts the blocks it
 *                                writes into the block cache, so the last-write-wins check of the next write of a
 *                                key still finds its last version in memory (RocksDB default: off)
 * @param blockSize               SST data block size in bytes (RocksDB default: 4 KiB): larger blocks mean a smaller
 *                                index to search and fewer cache entries, but a longer in-block search per lookup
 */
@RecordBuilder
public record StorageOptions(
        String name,
        CompactionStyle compaction,
        CompressionType compression,
        boolean concurrentMemtableWrite,
        boolean adaptiveYield,
        boolean autoCompactions,
        long writeBuffer,
        long blockCache,
        int bloomBitsPerKey,
        double memtableBloomRatio,
        boolean statistics,
        int maxOpenFiles,
        boolean hyperClockCache,
        boolean blockHashIndex,
        long rowCache,
        boolean prepopulateOnFlush,
        long blockSize)
        implements StorageOptionsBuilder.With {

    /** RocksDB 9.10's own defaults (only cache and memtable sized like the node's, so that they compare). */
    public static StorageOptions rocksDefaults(long writeBuffer, long blockCache) {
        return new StorageOptions(
                "rocksdb-defaults",
                CompactionStyle.LEVEL,
                CompressionType.SNAPPY_COMPRESSION,
                true,
                true,
                true,
                writeBuffer,
                blockCache,
                0,
                0.0,
                true,
                -1,
                false,
                false,
                0,
                false,
                4096);
    }

    /** The options of the seed report: universal compaction, LZ4, concurrent memtable writes, no auto compaction. */
    public static StorageOptions seeds(long writeBuffer, long blockCache) {
        return rocksDefaults(writeBuffer, blockCache)
                .with()
                .name("seeds")
                .compaction(CompactionStyle.UNIVERSAL)
                .compression(CompressionType.LZ4_COMPRESSION)
                .autoCompactions(false)
                .build();
    }

    /**
     * What the node runs with, chosen by the storage benchmark (docs/node.md): level compaction, LZ4, bloom filters
     * (10 bits/key on SSTs, whole-key bloom on the memtable: the last-write-wins check of a new key reads nothing),
     * concurrent memtable writes off (+30% writes on 2 CPUs: RocksDB's write-group coordination cost more than the
     * parallel inserts gained), a HyperClockCache block cache (within noise of LRU here, lookups take no lock), and
     * flushed blocks put into the block cache (a flush otherwise sent the next write of every key to a worker and the
     * disk: PUT p99 at 20k/s 24-206 ms in rounds with a flush, 5-13 ms with this; docs/node.md#defaults).
     */
    public static StorageOptions node(long writeBuffer, long blockCache) {
        return rocksDefaults(writeBuffer, blockCache)
                .with()
                .name("node")
                .compression(CompressionType.LZ4_COMPRESSION)
                .concurrentMemtableWrite(false)
                .bloomBitsPerKey(10)
                .memtableBloomRatio(0.02)
                .hyperClockCache(true)
                .prepopulateOnFlush(true)
                .build();
    }

    public StorageOptions withBloom(int bitsPerKey, double memtableRatio) {
        return with().bloomBitsPerKey(bitsPerKey)
                .memtableBloomRatio(memtableRatio)
                .build();
    }

    public StorageOptions withReadPath(boolean hyperClock, boolean hashIndex) {
        return with().hyperClockCache(hyperClock).blockHashIndex(hashIndex).build();
    }
}
