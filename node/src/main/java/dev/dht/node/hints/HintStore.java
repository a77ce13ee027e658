package dev.dht.node.hints;

import dev.dht.node.replication.HintSink;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.SideTable;
import dev.dht.node.storage.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a replica missed, kept for it in the "hints" column family of the node's RocksDB (same WAL: a hint
 * survives a crash of the coordinator like any acknowledged write). Layout:
 * <pre>
 *   key   = peer URL (UTF-8), 0x00, created at (ms, 8 bytes big-endian), sequence (8 bytes), record key
 *   value = the record, encoded as stored (so it carries its own timestamp and tombstone flag)
 * </pre>
 * so one peer's hints are one key prefix, oldest first. Bounded: beyond {@code maxBytes} of hints new ones are
 * dropped (and counted); hints older than {@code maxAge} are dropped by the delivery loop instead of delivered.
 */
public final class HintStore implements HintSink {
    private static final Logger log = LoggerFactory.getLogger(HintStore.class);
    private static final int META = 1 + 8 + 8;

    private final SideTable table;
    private final long maxBytes;
    private final LongSupplier wallMillis;
    private final AtomicLong sequence = new AtomicLong(System.nanoTime());
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    final LongAdder stored = new LongAdder();
    final LongAdder delivered = new LongAdder();
    final LongAdder dropped = new LongAdder();
    final LongAdder rerouted = new LongAdder();

    /** A hint as read back. */
    public record Hint(byte[] storageKey, String peer, long createdMillis, byte[] key, Record record) {
        long size() {
            return storageKey.length + record.encoded().length;
        }
    }

    /** Opens the table and counts what an earlier run left in it. */
    public HintStore(SideTable table, long maxBytes, LongSupplier wallMillis) {
        this.table = table;
        this.maxBytes = maxBytes;
        this.wallMillis = wallMillis;
        table.scan(new byte[0], (k, v) -> {
            pending.incrementAndGet();
            bytes.addAndGet(k.length + v.length);
            return true;
        });
        if (pending.get() > 0) {
            log.info("{} hints ({} bytes) left from before the restart", pending.get(), bytes.get());
        }
    }

    @Override
    public void store(String peer, byte[] key, Record record) {
        byte[] peerBytes = peer.getBytes(StandardCharsets.UTF_8);
        byte[] k = new byte[peerBytes.length + META + key.length];
        System.arraycopy(peerBytes, 0, k, 0, peerBytes.length);
        int p = peerBytes.length;
        k[p++] = 0;
        putLong(k, p, wallMillis.getAsLong());
        putLong(k, p + 8, sequence.incrementAndGet());
        System.arraycopy(key, 0, k, p + 16, key.length);
        byte[] v = record.encoded();
        long size = k.length + v.length;
        if (bytes.addAndGet(size) > maxBytes) {
            bytes.addAndGet(-size);
            dropped.increment();
            return;
        }
        try {
            table.put(k, v);
        } catch (StoreException e) {
            bytes.addAndGet(-size);
            dropped.increment();
            log.warn("hint for {} not stored: {}", peer, e.getMessage());
            return;
        }
        pending.incrementAndGet();
        stored.increment();
    }

    /** Up to limit hints for the peer, oldest first. */
    public List<Hint> oldest(String peer, int limit) {
        byte[] prefix = prefix(peer);
        List<Hint> out = new ArrayList<>();
        table.scan(prefix, (k, v) -> {
            int p = prefix.length;
            long created = getLong(k, p);
            byte[] key = Arrays.copyOfRange(k, p + 16, k.length);
            out.add(new Hint(k, peer, created, key, Record.decode(v)));
            return out.size() < limit;
        });
        return out;
    }

    /** The peers that have hints waiting (one seek per peer, jumping past each peer's hints). */
    public List<String> peers() {
        List<String> peers = new ArrayList<>();
        byte[] from = new byte[0];
        while (true) {
            String[] found = {null};
            table.scanFrom(from, (k, v) -> {
                int zero = indexOfZero(k);
                found[0] = zero > 0 ? new String(k, 0, zero, StandardCharsets.UTF_8) : null;
                return false;
            });
            if (found[0] == null) {
                return peers;
            }
            peers.add(found[0]);
            byte[] p = found[0].getBytes(StandardCharsets.UTF_8);
            from = Arrays.copyOf(p, p.length + 1);
            from[p.length] = 1; // just past every "peer\0..." key
        }
    }

    /** The hint reached its replica. */
    void delivered(Hint h) {
        if (remove(h)) {
            delivered.increment();
        }
    }

    /** The hint's member left: the record went to its key's current replicas instead. */
    void rerouted(Hint h) {
        if (remove(h)) {
            rerouted.increment();
        }
    }

    public long rerouted() {
        return rerouted.sum();
    }

    /** The hint is too old (or its peer left for good): dropped undelivered. */
    void expired(Hint h) {
        if (remove(h)) {
            dropped.increment();
        }
    }

    /**
     * Removes the hint and counts it out, once: the same hint can be answered twice (a late answer to a round
     * that gave up waiting, and the next round's offer), and counting both drove pending below zero.
     */
    private synchronized boolean remove(Hint h) {
        if (!table.contains(h.storageKey())) {
            return false;
        }
        table.delete(h.storageKey());
        pending.decrementAndGet();
        bytes.addAndGet(-h.size());
        return true;
    }

    public long pending() {
        return pending.get();
    }

    public long bytes() {
        return bytes.get();
    }

    public long stored() {
        return stored.sum();
    }

    public long delivered() {
        return delivered.sum();
    }

    public long dropped() {
        return dropped.sum();
    }

    private static byte[] prefix(String peer) {
        byte[] p = peer.getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOf(p, p.length + 1);
    }

    private static int indexOfZero(byte[] k) {
        for (int i = 0; i < k.length; i++) {
            if (k[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private static void putLong(byte[] a, int p, long v) {
        for (int i = 0; i < 8; i++) {
            a[p + i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    private static long getLong(byte[] a, int p) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (a[p + i] & 0xFF);
        }
        return v;
    }
}
