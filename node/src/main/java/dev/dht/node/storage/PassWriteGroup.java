package dev.dht.node.storage;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The writes one selector thread makes during one pass of its loop, applied together when the pass ends: the
 * last-write-wins check of each under its key's lock, then one RocksDB write of the winners (one WAL write for the
 * whole pass, instead of one write(2) and one write-group hand-off per request), then the outcomes. Confined to
 * its thread; {@link RocksStore} keeps one per selector thread.
 *
 * <p>Nothing here waits: a key whose lock another thread holds, whose current record is only on disk, or a write
 * RocksDB would stall, comes back as {@link WriteOutcome#wouldBlock()} for the caller to redo on a worker.
 */
final class PassWriteGroup {
    /** Above this many writes in a pass, duplicate keys are found through a map instead of a scan. */
    private static final int SCAN_LIMIT = 8;

    private enum Result {
        APPLIED,
        NOT_NEWER,
        WOULD_BLOCK,
        FAILED
    }

    private final RecordFamily store;
    private byte[][] keys = new byte[16][];
    private Record[] records = new Record[16];
    private WriteOutcome[] outcomes = new WriteOutcome[16];
    private int size;
    private final Runnable atEndOfPass = this::endOfPass;

    PassWriteGroup(RecordFamily store) {
        this.store = store;
    }

    void add(PassThread loop, byte[] key, Record record, WriteOutcome outcome) {
        if (size == 0) {
            loop.applyAtEndOfPass(atEndOfPass);
        }
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
            records = Arrays.copyOf(records, size * 2);
            outcomes = Arrays.copyOf(outcomes, size * 2);
        }
        keys[size] = key;
        records[size] = record;
        outcomes[size] = outcome;
        size++;
    }

    /** Applies the group: the selector loop runs this when the pass ends. */
    void endOfPass() {
        // Take the items out first: an outcome answers a request, which may let one-nio start the next pipelined
        // request of that connection right here, and its write starts a new group (run later in this pass's end).
        int n = size;
        byte[][] k = keys;
        Record[] r = records;
        WriteOutcome[] o = outcomes;
        keys = new byte[k.length][];
        records = new Record[k.length];
        outcomes = new WriteOutcome[k.length];
        size = 0;

        Result[] result = new Result[n];
        Record[] current = new Record[n];
        StoreException failure = null;
        ReentrantLock[] held = new ReentrantLock[n];
        int heldCount = 0;
        try (WriteBatch batch = new WriteBatch()) {
            Map<ByteBuffer, Integer> lastApplied = n > SCAN_LIMIT ? new HashMap<>() : null;
            int staged = 0;
            for (int i = 0; i < n; i++) {
                ReentrantLock lock = store.stripe(k[i]);
                if (!lock.tryLock()) {
                    result[i] = Result.WOULD_BLOCK; // a worker is writing this key (or one of its stripe)
                    continue;
                }
                held[heldCount++] = lock;
                int earlier = lastApplied == null
                        ? scanApplied(k, result, i)
                        : lastApplied.getOrDefault(ByteBuffer.wrap(k[i]), -1);
                // this pass already wrote the key: compare with that; else with what memory holds
                byte[] stored = earlier >= 0 ? r[earlier].encoded() : store.storedInMemory(k[i]);
                if (stored == RecordFamily.ON_DISK) {
                    result[i] = Result.WOULD_BLOCK;
                    continue;
                }
                if (stored != null && !RecordFamily.supersedes(r[i].encoded(), stored)) {
                    result[i] = Result.NOT_NEWER;
                    current[i] = Record.decode(stored);
                    continue;
                }
                store.stage(batch, k[i], r[i]);
                result[i] = Result.APPLIED;
                staged++;
                if (lastApplied != null) {
                    lastApplied.put(ByteBuffer.wrap(k[i]), i);
                }
            }
            if (staged > 0 && !store.writeWithoutStall(batch)) {
                demote(result, Result.WOULD_BLOCK);
            }
        } catch (RocksDBException | RuntimeException e) {
            failure = e instanceof StoreException se ? se : new StoreException("write failed: " + e.getMessage(), e);
            demote(result, Result.FAILED);
        } finally {
            for (int i = 0; i < heldCount; i++) {
                held[i].unlock();
            }
        }
        store.countGroup(n);
        for (int i = 0; i < n; i++) {
            switch (result[i]) { // every item has one: a failure demoted whatever was undecided to FAILED
                case APPLIED -> o[i].applied();
                case NOT_NEWER -> o[i].notNewer(current[i]);
                case WOULD_BLOCK -> o[i].wouldBlock();
                case FAILED -> o[i].failed(failure);
            }
        }
    }

    /** The last earlier item of this group with the same key that was applied, or -1. */
    private static int scanApplied(byte[][] k, Result[] result, int i) {
        for (int j = i - 1; j >= 0; j--) {
            if (result[j] == Result.APPLIED && Arrays.equals(k[j], k[i])) {
                return j;
            }
        }
        return -1;
    }

    /** Nothing staged was written: every APPLIED (and still undecided) item becomes the given result. */
    private static void demote(Result[] result, Result to) {
        for (int i = 0; i < result.length; i++) {
            if (result[i] == Result.APPLIED || result[i] == null) {
                result[i] = to;
            }
        }
    }
}
