package dev.dht.node.restore;

import dev.dht.node.io.Directories;
import dev.dht.node.sorting.Resolver;
import dev.dht.node.sorting.SortedCursor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this member received for a restore into a new cluster, kept until every share is sent: the record batches
 * (the body of a records call: see {@code movement.RecordBatch}) appended as they come to one journal in the data
 * directory, {@code <data-dir>/restore/received-<id>/journal}. A batch is acknowledged once appended (write(2), no
 * fsync: as the WAL, it survives the death of the process). Then {@link #sorted} reads the records back in key order,
 * the newest copy of each key ({@link FrameMerge}), and the store ingests them whole
 * (dev.dht.node.storage.SortedIngest): no lookup and no memtable insert per copy, which is what made restores slow.
 *
 * <p>Frames: magic {@code DHTJ}, the payload's length and CRC32C (4-byte ints), the payload. A frame cut short by the
 * death of the process (its batch was never acknowledged: the sender sends it again) is cut off when the journal is
 * opened again; a frame that fails its checksum anywhere else is corruption, and loading refuses it.
 */
final class ReceivedRecords implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReceivedRecords.class);
    static final String PREFIX = "received-";
    private static final int MAGIC = 0x44_48_54_4A; // "DHTJ"
    private static final int HEADER = 12;
    /** Larger than any batch a member sends (--move-batch is at most a few MiB): anything bigger is no frame. */
    private static final int MAX_FRAME = 256 << 20;

    private final String id;
    private final Path dir;
    private final Path journal;
    private final FileChannel channel;
    private long bytes;
    private long records;
    /** Where each frame is, and its first and last key: what the merge needs to read them in order. */
    private final List<Frame> frames = new ArrayList<>();
    /** Loading began: no more batches are taken (a late copy of one already taken is refused, not lost). */
    private boolean sealed;

    private ReceivedRecords(String id, Path dir) throws IOException {
        this.id = id;
        this.dir = dir;
        this.journal = dir.resolve("journal");
        Files.createDirectories(dir);
        this.channel =
                FileChannel.open(journal, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        long valid = scan();
        if (valid < channel.size()) {
            log.info(
                    "restore {}: the journal of received records ends in a frame cut short ({} of {} bytes valid);"
                            + " cut off: its batch was not acknowledged and comes again",
                    id,
                    valid,
                    channel.size());
            channel.truncate(valid);
        }
        channel.position(valid);
        this.bytes = valid;
    }

    /**
     * A frame of the journal: its payload's place and the keys it spans (a batch's keys ascend).
     *
     * @param offset where its header starts
     * @param length its payload's length
     */
    record Frame(long offset, int length, byte[] first, byte[] last) {}

    /** Opens (or creates) the journal of restore id under the restore directory. */
    static ReceivedRecords open(Path restoreDir, String id) throws IOException {
        return new ReceivedRecords(id, restoreDir.resolve(PREFIX + id));
    }

    /** Whether a journal of restore id exists (records were received for it and not loaded yet). */
    static boolean exists(Path restoreDir, String id) {
        return Files.exists(restoreDir.resolve(PREFIX + id).resolve("journal"));
    }

    String id() {
        return id;
    }

    /** Counts the whole frames from the start; returns where the last whole one ends. */
    private long scan() throws IOException {
        long at = 0;
        long size = channel.size();
        ByteBuffer header = ByteBuffer.allocate(HEADER);
        ByteBuffer payload = ByteBuffer.allocate(0);
        while (at + HEADER <= size) {
            header.clear();
            channel.read(header, at);
            header.flip();
            int length = header.getInt(4);
            if (header.getInt(0) != MAGIC || length < 0 || length > MAX_FRAME || at + HEADER + length > size) {
                break;
            }
            if (payload.capacity() < length) {
                payload = ByteBuffer.allocate(length);
            }
            payload.clear().limit(length);
            while (payload.hasRemaining()) {
                if (channel.read(payload, at + HEADER + payload.position()) < 0) {
                    break;
                }
            }
            if (crc(payload.array(), length) != header.getInt(8)) {
                break;
            }
            records += RestoreBatches.count(payload.array(), length);
            frames.add(frame(at, payload.array(), length));
            at += HEADER + length;
        }
        return at;
    }

    private static Frame frame(long offset, byte[] batch, int length) {
        return new Frame(offset, length, RestoreBatches.firstKey(batch), RestoreBatches.lastKey(batch, length));
    }

    private static int crc(byte[] a, int length) {
        CRC32C c = new CRC32C();
        c.update(a, 0, length);
        return (int) c.getValue();
    }

    /**
     * Appends a batch (already checked: {@link RestoreBatches#check}) holding {@code count} records.
     *
     * @throws IllegalStateException the records are being loaded: the batch is a late copy of one already taken
     */
    synchronized void append(byte[] batch, int length, int count) throws IOException {
        if (sealed) {
            throw new IllegalStateException("restore " + id + " is loading what it received: no more records");
        }
        ByteBuffer header =
                ByteBuffer.allocate(HEADER).putInt(MAGIC).putInt(length).putInt(crc(batch, length));
        header.flip();
        ByteBuffer[] frame = {header, ByteBuffer.wrap(batch, 0, length)};
        long start = channel.position();
        try {
            while (frame[1].hasRemaining()) {
                channel.write(frame);
            }
        } catch (IOException e) {
            channel.truncate(start); // a batch half written (a full disk): not acknowledged, gone
            channel.position(start);
            throw e;
        }
        bytes += HEADER + length;
        records += count;
        frames.add(frame(start, batch, length));
    }

    synchronized long bytes() {
        return bytes;
    }

    synchronized long records() {
        return records;
    }

    /** The frames so far, in the order they were appended. */
    synchronized List<Frame> frames() {
        return List.copyOf(frames);
    }

    /** No more batches are taken from now on. */
    synchronized void seal() {
        sealed = true;
    }

    /**
     * Every record received, in key order, one per key: the one the resolver prefers (a sort in sortDir, within
     * sortBytes, if the frames overlap too much to merge: see {@link FrameMerge}). Seals the journal.
     */
    SortedCursor sorted(Resolver resolver, Path sortDir, int sortBytes) throws IOException {
        seal();
        return FrameMerge.sorted(this, frames(), resolver, sortDir, sortBytes);
    }

    /** The payload of a frame into buffer (grown if needed: the one returned); refuses one that fails its checksum. */
    byte[] read(Frame f, byte[] buffer) throws IOException {
        byte[] b = buffer.length >= f.length() ? buffer : new byte[Math.max(f.length(), buffer.length * 2)];
        ByteBuffer header = ByteBuffer.allocate(HEADER);
        readFully(header, f.offset());
        ByteBuffer payload = ByteBuffer.wrap(b, 0, f.length());
        readFully(payload, f.offset() + HEADER);
        if (header.getInt(0) != MAGIC || header.getInt(4) != f.length() || crc(b, f.length()) != header.getInt(8)) {
            throw new IOException("the journal of restore " + id + " is corrupt at byte " + f.offset());
        }
        return b;
    }

    private void readFully(ByteBuffer into, long at) throws IOException {
        long position = at;
        while (into.hasRemaining()) {
            int n = channel.read(into, position);
            if (n < 0) {
                throw new IOException("the journal of restore " + id + " ends before byte " + position);
            }
            position += n;
        }
    }

    /** Deletes the journal (its records are loaded). */
    void delete() throws IOException {
        close();
        Directories.deleteTree(dir);
    }

    @Override
    public synchronized void close() {
        try {
            channel.close();
        } catch (IOException e) {
            log.warn("closing the journal of restore {}: {}", id, e.getMessage());
        }
    }
}
