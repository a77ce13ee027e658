package dev.dht.node.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.EnvOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileWriter;

/**
 * Sorted table files of one family, written for RocksDB to ingest whole (a sorted load, the digest index), cut at
 * {@link #FILE_BYTES} as RocksDB's compactions would cut them. Entries must come in ascending key order.
 */
final class TableFiles implements AutoCloseable {
    static final long FILE_BYTES = 64L << 20;

    private static final int SIZE_CHECK_EVERY = 256;

    private final Options tableOptions;
    private final Path dir;
    private final String prefix;
    private final List<String> done = new ArrayList<>();
    private EnvOptions env;
    private SstFileWriter writer;
    private long puts;
    private long bytes;

    /** Files named prefix-N.sst in dir (which must exist), written with the family's table options. */
    TableFiles(Options tableOptions, Path dir, String prefix) {
        this.tableOptions = tableOptions;
        this.dir = dir;
        this.prefix = prefix;
    }

    void put(byte[] key, byte[] value) throws RocksDBException, IOException {
        if (writer == null) {
            env = new EnvOptions();
            writer = new SstFileWriter(env, tableOptions);
            String file = dir.resolve(prefix + "-" + done.size() + ".sst").toString();
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

    /** Finishes the last file; the paths of all of them (none when nothing was put). */
    List<String> finish() throws RocksDBException, IOException {
        finishFile();
        return List.copyOf(done);
    }

    /** Bytes of the finished files. */
    long bytes() {
        return bytes;
    }

    @Override
    public void close() {
        if (writer != null) {
            writer.close();
            env.close();
        }
    }
}
