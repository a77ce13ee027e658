package dev.dht.node.storage;

import dev.dht.node.io.Directories;
import dev.dht.node.sorting.ExternalSorter;
import dev.dht.node.sorting.SortedCursor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileWriter;

/**
 * Loads records that come sorted by key, one per key, into the store without a write per record: they are written
 * as table files, with their digests (sorted by ring hash through an {@link ExternalSorter}), and RocksDB ingests
 * the files whole ({@code IngestExternalFile}). A restore loads what its members received this way
 * (dev.dht.node.restore): a lookup and a memtable insert per copy cost it about 9 µs of CPU, a sorted file a fraction.
 *
 * <p>Last write wins against what the store already holds: a stored record that supersedes the incoming one stays
 * (the incoming one is left out of the files). The ingested files take precedence over everything stored before
 * them, so nothing may write the keys loaded while this runs; a restore guarantees it (no member serves clients
 * until every member has loaded).
 *
 * <p>Records and digests are two ingestions, one per family (rocksdbjni has no atomic ingestion of several
 * families): a process that dies between them leaves records without digests, and the caller must load again before
 * it serves (a load is idempotent: the same records win again).
 */
public final class SortedIngest {
    /** Table files are cut at about this size, as RocksDB's compactions would cut them. */
    static final long FILE_BYTES = 64L << 20;

    private static final int SIZE_CHECK_EVERY = 256;

    /**
     * What a load did.
     *
     * @param loaded     records written
     * @param keptStored incoming records left out: the store held a newer version
     * @param files      table files ingested (both families)
     * @param bytes      their size
     */
    public record Result(long loaded, long keptStored, int files, long bytes) {}

    private final RocksDB db;
    private final ColumnFamilyHandle records;
    private final ColumnFamilyHandle digests;
    private final Options tableOptions;
    private final Path work;
    private long bytes;

    SortedIngest(RocksDB db, ColumnFamilyHandle records, ColumnFamilyHandle digests, Options tableOptions, Path work) {
        this.db = db;
        this.records = records;
        this.digests = digests;
        this.tableOptions = tableOptions;
        this.work = work;
    }

    Result load(SortedCursor incoming, int sortBytes) throws IOException, RocksDBException {
        Directories.deleteTree(work); // what a load that died left
        Files.createDirectories(work);
        try {
            return loadInto(incoming, sortBytes);
        } finally {
            Directories.deleteTree(work); // ingested files were moved out; the rest is of no use
        }
    }

    private Result loadInto(SortedCursor incoming, int sortBytes) throws IOException, RocksDBException {
        long loaded = 0;
        long kept = 0;
        List<String> recordFiles;
        List<String> digestFiles;
        try (ExternalSorter digestSort = new ExternalSorter(
                        work.resolve("digest-sort"),
                        sortBytes,
                        (a, ao, al, b, bo, bl) -> false); // one digest per key: never two to choose from
                ReadOptions read = new ReadOptions().setFillCache(false);
                RocksIterator stored = db.newIterator(records, read);
                TableFiles writer = new TableFiles("records")) {
            stored.seekToFirst();
            // the stored key under the iterator (one copy out of RocksDB per step, not per comparison)
            byte[] storedKey = stored.isValid() ? stored.key() : null;
            byte[] previous = null;
            while (incoming.next()) {
                byte[] key = Arrays.copyOfRange(
                        incoming.keyBuffer(), incoming.keyOffset(), incoming.keyOffset() + incoming.keyLength());
                if (previous != null && Arrays.compareUnsigned(previous, key) >= 0) {
                    throw new IllegalArgumentException("records to load are not sorted: " + Arrays.toString(key));
                }
                previous = key;
                Record record = Record.decode(Arrays.copyOfRange(
                        incoming.valueBuffer(),
                        incoming.valueOffset(),
                        incoming.valueOffset() + incoming.valueLength()));
                while (storedKey != null && Arrays.compareUnsigned(storedKey, key) < 0) {
                    stored.next();
                    storedKey = stored.isValid() ? stored.key() : null;
                }
                if (storedKey != null
                        && Arrays.equals(storedKey, key)
                        && !RecordFamily.supersedes(record.encoded(), stored.value())) {
                    kept++;
                    continue;
                }
                writer.put(key, record.encoded());
                digestSort.add(Digest.entryKey(key), Digest.entryValue(record));
                loaded++;
            }
            stored.status();
            recordFiles = writer.finish();
            try (SortedCursor sorted = digestSort.sorted();
                    TableFiles digestWriter = new TableFiles("digests")) {
                while (sorted.next()) {
                    digestWriter.put(
                            Arrays.copyOfRange(
                                    sorted.keyBuffer(), sorted.keyOffset(), sorted.keyOffset() + sorted.keyLength()),
                            Arrays.copyOfRange(
                                    sorted.valueBuffer(),
                                    sorted.valueOffset(),
                                    sorted.valueOffset() + sorted.valueLength()));
                }
                digestFiles = digestWriter.finish();
            }
        }
        try (IngestExternalFileOptions ingest = new IngestExternalFileOptions()
                .setMoveFiles(true) // hard links: the files are on the store's filesystem
                .setAllowGlobalSeqNo(true)
                .setAllowBlockingFlush(true)) {
            if (!recordFiles.isEmpty()) {
                db.ingestExternalFile(records, recordFiles, ingest);
            }
            if (!digestFiles.isEmpty()) {
                db.ingestExternalFile(digests, digestFiles, ingest);
            }
        }
        return new Result(loaded, kept, recordFiles.size() + digestFiles.size(), bytes);
    }

    /** Sorted table files of one family, cut at {@link #FILE_BYTES}. */
    private final class TableFiles implements AutoCloseable {
        private final String family;
        private final List<String> done = new ArrayList<>();
        private EnvOptions env;
        private SstFileWriter writer;
        private long puts;

        TableFiles(String family) {
            this.family = family;
        }

        void put(byte[] key, byte[] value) throws RocksDBException, IOException {
            if (writer == null) {
                env = new EnvOptions();
                writer = new SstFileWriter(env, tableOptions);
                String file = work.resolve(family + "-" + done.size() + ".sst").toString();
                writer.open(file);
                done.add(file);
            }
            writer.put(key, value);
            if (++puts % SIZE_CHECK_EVERY == 0 && writer.fileSize() >= FILE_BYTES) {
                finishFile();
            }
        }

        private void finishFile() throws RocksDBException, IOException {
            if (writer != null) {
                writer.finish();
                bytes += Files.size(Path.of(done.get(done.size() - 1)));
                writer.close();
                env.close();
                writer = null;
                env = null;
            }
        }

        List<String> finish() throws RocksDBException, IOException {
            finishFile();
            return List.copyOf(done);
        }

        @Override
        public void close() {
            if (writer != null) {
                writer.close();
                env.close();
            }
        }
    }
}
