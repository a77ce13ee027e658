package dev.dht.node.repair;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.movement.RecordBatch;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves the records a {@link Reconciliation} decided on: reads each from a replica that holds it (this node's store
 * or a fetch call), and sends each replica that lacks it a batch it applies last-write-wins (this node applies its
 * own share directly). Calls are started together and then awaited; any replica that does not answer fails the step.
 */
final class RecordTransfer {
    static final int KEYS_PER_FETCH = 512;
    static final int BATCH_BYTES = 256 << 10;

    private final Store store;
    private final RepairPeers peers;
    private final String ringId;
    private final String self;
    private final List<String> members;
    private final RepairStats stats;
    private final HybridLogicalClock clock;

    RecordTransfer(
            Store store, RepairPeers peers, String ringId, String self, List<String> members, RepairStats stats) {
        this.store = store;
        this.peers = peers;
        this.ringId = ringId;
        this.self = self;
        this.members = List.copyOf(members);
        this.stats = stats;
        this.clock = peers.clock();
    }

    /** The records to send: for each replica (by index in members), the keys to read from it; newest kept. */
    Map<ByteBuffer, Record> fetch(Map<Integer, List<byte[]>> bySource) throws RepairException {
        Map<ByteBuffer, Record> out = new HashMap<>();
        List<RepairPeers.Call> calls = new ArrayList<>();
        for (Map.Entry<Integer, List<byte[]>> e : bySource.entrySet()) {
            String member = members.get(e.getKey());
            List<byte[]> list = e.getValue();
            for (int from = 0; from < list.size(); from += KEYS_PER_FETCH) {
                List<byte[]> chunk = list.subList(from, Math.min(list.size(), from + KEYS_PER_FETCH));
                if (member.equals(self)) {
                    for (byte[] k : chunk) {
                        keep(out, k, store.get(k));
                    }
                } else {
                    calls.add(peers.fetch(member, ringId, new ArrayList<>(chunk)));
                }
            }
        }
        for (RepairPeers.Call c : calls) {
            RecordBatch.Decoded batch;
            try {
                batch = RecordBatch.decode(c.body());
            } catch (IllegalArgumentException e) {
                throw new RepairException("a replica", "bad record batch: " + e.getMessage());
            }
            for (int i = 0; i < batch.keys().size(); i++) {
                keep(out, batch.keys().get(i), batch.records().get(i));
            }
        }
        return out;
    }

    private static void keep(Map<ByteBuffer, Record> out, byte[] key, Record r) {
        if (r == null) {
            return;
        }
        out.merge(ByteBuffer.wrap(key), r, (a, b) -> b.supersedes(a) ? b : a);
    }

    /** Applies records here: one stamped beyond the clock's bound is left out (docs/security.md, "Clocks"). */
    private int applyLocally(List<byte[]> keys, List<Record> records) {
        List<byte[]> k = new ArrayList<>(keys.size());
        List<Record> r = new ArrayList<>(records.size());
        for (int i = 0; i < keys.size(); i++) {
            if (clock.observe(records.get(i).timestamp())) {
                k.add(keys.get(i));
                r.add(records.get(i));
            }
        }
        return store.applyAllIfNewer(k, r);
    }

    /** Sends each member (by index in members) what it lacks; returns records stored and their bytes. */
    long[] push(List<List<byte[]>> keys, List<List<Record>> records) throws RepairException {
        long stored = 0;
        long bytes = 0;
        List<RepairPeers.Call> calls = new ArrayList<>();
        List<Integer> callSizes = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            List<byte[]> k = keys.get(i);
            List<Record> r = records.get(i);
            if (k.isEmpty()) {
                continue;
            }
            if (members.get(i).equals(self)) {
                stored += applyLocally(k, r);
                for (Record x : r) {
                    bytes += x.encoded().length;
                }
                stats.keysReceived.add(k.size());
                continue;
            }
            RecordBatch batch = new RecordBatch();
            for (int j = 0; j < k.size(); j++) {
                batch.add(k.get(j), r.get(j));
                bytes += r.get(j).encoded().length;
                if (batch.bytes() >= BATCH_BYTES) {
                    calls.add(peers.apply(members.get(i), ringId, batch));
                    batch = new RecordBatch();
                }
            }
            if (batch.count() > 0) {
                calls.add(peers.apply(members.get(i), ringId, batch));
            }
        }
        for (RepairPeers.Call c : calls) {
            stored += RepairEndpoints.storedCount(c.body());
        }
        return new long[] {stored, bytes};
    }
}
