package dev.dht.node.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.DataBlockIndexType;
import org.rocksdb.Filter;
import org.rocksdb.HyperClockCache;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.ReadTier;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.TickerType;
import org.rocksdb.WriteOptions;

/**
 * The native options, caches and filters of one {@link RocksStore}, made once from {@link StorageOptions} and
 * reused for every call, and the column families an open names. Closed with the store, after the database.
 */
final class RocksOptions implements AutoCloseable {
    /** The families this version uses besides "default" (which holds the records). */
    private static final List<String> KNOWN_FAMILIES = List.of(RocksStore.HINTS, DigestIndex.NAME, RocksStore.REPAIR);

    final DBOptions db;
    final ColumnFamilyOptions family;

    final Cache blockCache;
    private final Cache rowCache;
    private final Filter bloom;
    private final Statistics statistics;
    final WriteOptions write;
    /** For writes from threads that must not wait: fail with Incomplete instead of sleeping in a write stall. */
    final WriteOptions noStall;

    final ReadOptions read;
    /** Reads for threads that must not block: memtables and block cache only, Incomplete if I/O would be needed. */
    final ReadOptions memoryOnly;

    RocksOptions(StorageOptions o) {
        this.statistics = o.statistics() ? new Statistics() : null;
        if (statistics != null) {
            statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
        }
        this.db = new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setAllowConcurrentMemtableWrite(o.concurrentMemtableWrite())
                .setEnableWriteThreadAdaptiveYield(o.adaptiveYield())
                .setMaxOpenFiles(o.maxOpenFiles())
                .setMaxBackgroundJobs(Math.max(2, Runtime.getRuntime().availableProcessors()))
                .setBytesPerSync(1 << 20)
                // The WAL is kept until every family has flushed what it holds: a side family written rarely (hints,
                // repair) or in small entries (digests) held it back to RocksDB's default bound, several GB here, which
                // a restart replays and a backup (LiveCheckpoint) copies. Two memtables' worth: the records' own
                // flushes are never hurried, the side families flush when it is reached.
                .setMaxTotalWalSize(2 * o.writeBuffer())
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
                .setKeepLogFileNum(5)
                .setMaxLogFileSize(16 << 20);
        if (statistics != null) {
            db.setStatistics(statistics);
        }
        this.rowCache = o.rowCache() > 0 ? new LRUCache(o.rowCache()) : null;
        if (rowCache != null) {
            db.setRowCache(rowCache);
        }
        this.blockCache =
                o.hyperClockCache() ? new HyperClockCache(o.blockCache(), 0, -1, false) : new LRUCache(o.blockCache());
        this.bloom = o.bloomBitsPerKey() > 0 ? new BloomFilter(o.bloomBitsPerKey(), false) : null;
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(blockCache)
                // Index and filter blocks live with the table readers, outside the block cache (RocksDB's default).
                // Inside a small cache they get evicted by data blocks and re-read on every miss: StoreBench saw
                // point reads fall from ~240k/s to ~4k/s with a 64 MiB cache (docs/node.md).
                .setCacheIndexAndFilterBlocks(false)
                .setBlockSize(o.blockSize())
                .setFormatVersion(5);
        if (o.blockHashIndex()) {
            table.setDataBlockIndexType(DataBlockIndexType.kDataBlockBinaryAndHash)
                    .setDataBlockHashTableUtilRatio(0.75);
        }
        if (bloom != null) {
            table.setFilterPolicy(bloom);
        }
        this.family = familyOptions(o, table);
        if (o.memtableBloomRatio() > 0) {
            family.setMemtableWholeKeyFiltering(true).setMemtablePrefixBloomSizeRatio(o.memtableBloomRatio());
        }
        this.write = new WriteOptions().setSync(false).setDisableWAL(false);
        this.noStall = new WriteOptions().setSync(false).setDisableWAL(false).setNoSlowdown(true);
        this.read = new ReadOptions();
        this.memoryOnly = new ReadOptions().setReadTier(ReadTier.BLOCK_CACHE_TIER);
    }

    private static ColumnFamilyOptions familyOptions(StorageOptions o, BlockBasedTableConfig table) {
        return new ColumnFamilyOptions()
                .setCompactionStyle(o.compaction())
                .setCompressionType(o.compression())
                .setWriteBufferSize(o.writeBuffer())
                .setMaxWriteBufferNumber(3)
                .setDisableAutoCompactions(!o.autoCompactions())
                .setLevelCompactionDynamicLevelBytes(true)
                .setTableFormatConfig(table);
    }

    /** Options of the same database for a tool that needs the old combined form (listing, ingest). */
    Options combined() {
        return new Options(db, family);
    }

    /** "default" then every family to open: ours, and any other on disk (a newer version may have added some). */
    List<ColumnFamilyDescriptor> descriptors(List<String> onDisk, List<String> names) {
        names.add("default");
        for (String s : KNOWN_FAMILIES) {
            names.add(s);
        }
        if (onDisk != null) {
            for (String s : onDisk) {
                if (!names.contains(s)) {
                    names.add(s);
                }
            }
        }
        List<ColumnFamilyDescriptor> out = new ArrayList<>();
        for (String name : names) {
            out.add(
                    name.equals("default")
                            ? new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, family)
                            : new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8), family));
        }
        return out;
    }

    /** The families of an existing database, or null when the directory holds none yet. */
    List<String> familiesOnDisk(Path dir) {
        if (!Files.exists(dir.resolve("CURRENT"))) {
            return null;
        }
        List<String> names = new ArrayList<>();
        try (Options listing = combined()) {
            for (byte[] name : RocksDB.listColumnFamilies(listing, dir.toString())) {
                names.add(new String(name, StandardCharsets.UTF_8));
            }
        } catch (RocksDBException e) {
            throw new StoreException("cannot list column families in " + dir + ": " + e.getMessage(), e);
        }
        return names;
    }

    /** A statistics ticker since the store opened; 0 when statistics are off. */
    long ticker(TickerType type) {
        return statistics == null ? 0 : statistics.getTickerCount(type);
    }

    @Override
    public void close() {
        write.close();
        noStall.close();
        read.close();
        memoryOnly.close();
        family.close();
        db.close();
        if (bloom != null) {
            bloom.close();
        }
        blockCache.close();
        if (rowCache != null) {
            rowCache.close();
        }
        if (statistics != null) {
            statistics.close();
        }
    }
}
