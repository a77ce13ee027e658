package dev.dht.node.restore;

import dev.dht.node.io.Directories;
import dev.dht.node.sorting.Resolver;
import dev.dht.node.sorting.SortedCursor;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.SortedIngest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records this member receives for restores into a new cluster, by restore id: each batch checked and appended
 * to that restore's journal ({@link ReceivedRecords}) as it arrives, from the other members and from this member's
 * own share; once every share is sent, {@link #load} reads them back in key order keeping the newest copy of each key
 * (timestamps and tombstones as stored: {@link FrameMerge}) and the store ingests the result whole.
 */
final class Inbox implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Inbox.class);
    /** Last write wins between two copies of a key: {@code Record.supersedes}' order. */
    static final Resolver NEWEST = (a, ao, al, b, bo, bl) -> Record.compareEncoded(a, ao, al, b, bo, bl) > 0;

    private final Path dir;
    private final LongPredicate timestampAccepted;
    private final int sortBytes;
    private final Map<String, ReceivedRecords> journals = new ConcurrentHashMap<>();
    private volatile SortedIngest.Result lastLoad;
    private volatile long lastLoadMillis;

    /**
     * @param dir               the restore directory ({@code <data-dir>/restore})
     * @param timestampAccepted the clock's bound: a record stamped beyond it is left out
     * @param sortBytes         memory for the load's sort of the records
     */
    Inbox(Path dir, LongPredicate timestampAccepted, int sortBytes) {
        this.dir = dir;
        this.timestampAccepted = timestampAccepted;
        this.sortBytes = sortBytes;
    }

    /** Memory for a load's sort: a tenth of the heap, within [8, 64] MiB. */
    static int sortBytes(long maxHeap) {
        return (int) Math.max(8L << 20, Math.min(64L << 20, maxHeap / 10));
    }

    /**
     * Checks a batch received for restore id and keeps it.
     *
     * @throws IllegalArgumentException the batch is not well formed (nothing kept)
     * @throws IllegalStateException    restore id is loading already: a late copy of a batch it has
     */
    RestoreBatches.Checked take(String id, byte[] body) throws IOException {
        RestoreBatches.Checked checked = RestoreBatches.check(body, timestampAccepted);
        if (checked.count() > 0) {
            journal(id).append(checked.bytes(), checked.bytes().length, checked.count());
        }
        return checked;
    }

    private ReceivedRecords journal(String id) {
        return journals.computeIfAbsent(id, i -> {
            try {
                return ReceivedRecords.open(dir, i);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open the journal of restore " + i + ": " + e.getMessage(), e);
            }
        });
    }

    /** Records received for restore id and not loaded yet (0 when none). */
    long records(String id) {
        if (!journals.containsKey(id) && !ReceivedRecords.exists(dir, id)) {
            return 0;
        }
        return journal(id).records();
    }

    /** Bytes of the journal of restore id (0 when none). */
    long bytes(String id) {
        ReceivedRecords r = journals.get(id);
        return r == null ? 0 : r.bytes();
    }

    /**
     * Sorts everything received for restore id and loads it into the store; idempotent (a load that died is done
     * again whole). The journal stays until {@link #delete}: the caller first persists that the load is done.
     */
    SortedIngest.Result load(String id, RocksStore store) throws IOException {
        long started = System.nanoTime();
        ReceivedRecords received = journal(id);
        Path work = dir.resolve("load-" + id);
        Directories.deleteTree(work);
        SortedIngest.Result result;
        try (SortedCursor sorted = received.sorted(NEWEST, work.resolve("sort"), sortBytes)) {
            result = store.ingestSorted(sorted, work.resolve("tables"));
        }
        Directories.deleteTree(work);
        lastLoad = result;
        lastLoadMillis = (System.nanoTime() - started) / 1_000_000;
        log.info(
                "restore {}: loaded {} records of the {} copies received ({} kept as stored) in {} ms, {} table files,"
                        + " {} bytes",
                id,
                result.loaded(),
                received.records(),
                result.keptStored(),
                lastLoadMillis,
                result.files(),
                result.bytes());
        return result;
    }

    /** For the restore's status: what restore id received, and what the last load did. */
    Map<String, Object> status(String id) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("received", Map.of("records", records(id), "bytes", bytes(id)));
        SortedIngest.Result r = lastLoad;
        if (r != null) { // whole numbers only: members parse this status too
            m.put(
                    "load",
                    Map.of(
                            "records",
                            r.loaded(),
                            "keptStored",
                            r.keptStored(),
                            "files",
                            r.files(),
                            "bytes",
                            r.bytes(),
                            "millis",
                            lastLoadMillis));
        }
        return m;
    }

    /** Deletes what restore id received (it is loaded, or the restore is abandoned). */
    void delete(String id) throws IOException {
        ReceivedRecords r = journals.remove(id);
        if (r != null) {
            r.delete();
        } else {
            Directories.deleteTree(dir.resolve(ReceivedRecords.PREFIX + id));
        }
        Directories.deleteTree(dir.resolve("load-" + id));
    }

    @Override
    public void close() {
        journals.values().forEach(ReceivedRecords::close);
    }
}
