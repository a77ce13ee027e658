package dev.dht.node.restore;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.movement.BatchCall;
import dev.dht.node.movement.MovementEndpoints;
import dev.dht.node.movement.RecordBatch;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.replication.Topology;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Sends records to their owners in this cluster's ring: each record to every replica of its key, as stored:
 * timestamp and tombstone flag unchanged. Into a live cluster the owners apply them last-write-wins
 * ({@code applyIfNewer}: {@code PUT /v0/internal/records}, the call moves use; the node's own copies go straight
 * into its store). Into a new cluster ({@link #toInboxes}) every owner keeps them in its {@link Inbox} until every
 * share is sent, then loads them whole ({@code PUT /v0/internal/restore/records?id=}; the node's own copies into
 * its own inbox). {@link #send} puts a slice of batches in flight without waiting, so the
 * caller reads the next slice while the owners store this one; {@link #await} returns once every batch of a slice is
 * acknowledged, sending failed ones again every second, so a caller that persists its position only after the
 * slices before it are acknowledged repeats at most the slices in flight.
 */
final class RecordSender {
    static final long RETRY_MILLIS = 1000;

    private final Store store;
    private final Topology topology;
    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final String self;
    private final int batchBytes;
    private final long timeoutNanos;
    private final Map<String, RecordBatch> batches = new HashMap<>();
    private final List<BatchCall> pending = new ArrayList<>();
    private final List<byte[]> localKeys = new ArrayList<>();
    private final List<Record> localRecords = new ArrayList<>();
    /** The restore whose inboxes take the batches, or null: the owners apply them. */
    private String inboxId;

    private Inbox inbox;
    private RecordBatch own = new RecordBatch();
    final AtomicLong recordsSent = new AtomicLong();
    final AtomicLong copiesSent = new AtomicLong();
    volatile String waitingFor;

    RecordSender(
            Store store,
            Topology topology,
            PeerClient client,
            HybridLogicalClock clock,
            String self,
            int batchBytes,
            long timeoutNanos) {
        this.store = store;
        this.topology = topology;
        this.client = client;
        this.clock = clock;
        this.self = self;
        this.batchBytes = batchBytes;
        this.timeoutNanos = timeoutNanos;
    }

    /** From now on batches go to the owners' inboxes of restore id, and the node's own copies to its inbox. */
    void toInboxes(String id, Inbox local) {
        this.inboxId = id;
        this.inbox = local;
    }

    /** Queues a record for every owner of its key; full batches go out at once. */
    void add(byte[] key, Record record) {
        clock.observe(record.timestamp());
        recordsSent.incrementAndGet();
        for (String owner : topology.view().replicasOf(key)) {
            copiesSent.incrementAndGet();
            if (owner.equals(self)) {
                if (inbox != null) {
                    own.add(key, record);
                } else {
                    localKeys.add(key);
                    localRecords.add(record);
                }
                continue;
            }
            RecordBatch b = batches.computeIfAbsent(owner, o -> new RecordBatch());
            b.add(key, record);
            if (b.bytes() >= batchBytes) {
                pending.add(sendTo(owner, b.toBytes()));
                batches.remove(owner);
            }
        }
    }

    /** Bytes queued and not yet sent. */
    long buffered() {
        long n = 0;
        for (RecordBatch b : batches.values()) {
            n += b.bytes();
        }
        return n;
    }

    /**
     * Applies the local copies and sends what is queued, without waiting: the returned slice is every batch sent
     * since the last call. {@link #await} it before persisting a position past its records.
     */
    Slice send() {
        if (own.count() > 0) {
            try {
                inbox.take(inboxId, own.toBytes());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot keep this node's own copies: " + e.getMessage(), e);
            }
            own = new RecordBatch();
        }
        if (!localKeys.isEmpty()) {
            store.applyAllIfNewer(localKeys, localRecords);
            localKeys.clear();
            localRecords.clear();
        }
        batches.forEach((owner, b) -> pending.add(sendTo(owner, b.toBytes())));
        batches.clear();
        Slice slice = new Slice(new ArrayList<>(pending));
        pending.clear();
        return slice;
    }

    /**
     * Waits until every batch of the slice is acknowledged (true), sending failed ones again every second, or until
     * {@code going} turns false (false: the caller repeats the slice later).
     */
    boolean await(Slice slice, BooleanSupplier going) throws InterruptedException {
        List<BatchCall> waiting = slice.batches;
        while (!waiting.isEmpty()) {
            List<BatchCall> failed = new ArrayList<>();
            for (BatchCall p : waiting) {
                if (!p.await()) {
                    failed.add(p);
                }
            }
            if (failed.isEmpty()) {
                break;
            }
            waitingFor = "sending to " + failed.get(0).failure();
            TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS);
            if (!going.getAsBoolean()) {
                return false;
            }
            for (BatchCall p : failed) {
                p.go();
            }
            waiting = failed;
        }
        waitingFor = null;
        return true;
    }

    /** The batches one {@link #send} put in flight. */
    static final class Slice {
        private final List<BatchCall> batches;

        private Slice(List<BatchCall> batches) {
            this.batches = batches;
        }
    }

    /**
     * A batch to one owner, sent now: to its inbox during a restore into a new cluster, else applied. The path is
     * the batch's for good: {@link #toInboxes} comes before the first record.
     */
    private BatchCall sendTo(String owner, byte[] body) {
        String path = inboxId == null ? MovementEndpoints.RECORDS : RestoreEndpoints.RECORDS + "?id=" + inboxId;
        return new BatchCall(
                        client, clock, owner, path, body, () -> topology.view().requestHeader(), timeoutNanos)
                .go();
    }
}
