package dev.dht.node.repair;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.ring.XxHash64;
import dev.dht.node.storage.Digest;
import dev.dht.node.storage.DigestCursor;
import dev.dht.node.storage.DigestScan;
import dev.dht.node.storage.Store;
import java.util.ArrayList;
import java.util.List;

/**
 * What one replica reports about a span of the ring, read from its digest index ({@code Store.digestScan}): the
 * count and combined hash of its entries, or the entries themselves. A tombstone older than the span's purge
 * horizon is left out, as if already purged: a purgeable tombstone and an absent key compare equal, so replicas that
 * purged at different moments never look different (CASSANDRA-8979's lesson).
 */
final class RangeSummaries {
    private RangeSummaries() {}

    /**
     * What a comparison reads: the digest index as of a moment at or after {@code at} (a round's start). An index is
     * built after the call that asks for it arrived, so it holds every write this replica had when the round began,
     * whatever the two clocks say; it is stamped {@code max(now, at)} so that the same round's next calls reuse it
     * even from a coordinator whose clock is ahead of this one (by at most --max-clock-ahead: a call further ahead is
     * refused). As with the cutoff, members' clocks are taken to be within the in-flight window of each other.
     */
    record AsOf(long at, HybridLogicalClock clock) {
        DigestScan scan(Store store) {
            return store.digestScan(at, () -> Math.max(clock.now(), at));
        }
    }

    /** The hash one entry adds to its span's sum: order-free, so a span and its parts add up. */
    static long entryHash(Digest d) {
        return XxHash64.hashLong(d.recordHash(), d.hash());
    }

    static boolean counted(Digest d, long horizon) {
        return !(d.tombstone() && d.timestamp() < horizon);
    }

    /** Each query's summary, read through one scan of the index (DigestScan: not an iterator per span). */
    static List<RepairWire.Summary> summarize(Store store, AsOf asOf, List<RepairWire.Query> queries) {
        List<RepairWire.Summary> out = new ArrayList<>(queries.size());
        try (DigestScan scan = asOf.scan(store)) {
            for (RepairWire.Query q : queries) {
                out.add(summarize(scan, q));
            }
        }
        return out;
    }

    /** Each query's entries, at most cap of them per query (truncated then), through one scan of the index. */
    static List<RepairWire.Listing> list(Store store, AsOf asOf, List<RepairWire.Query> queries, int cap) {
        List<RepairWire.Listing> out = new ArrayList<>(queries.size());
        try (DigestScan scan = asOf.scan(store)) {
            for (RepairWire.Query q : queries) {
                out.add(list(scan, q, cap));
            }
        }
        return out;
    }

    private static RepairWire.Summary summarize(DigestScan scan, RepairWire.Query q) {
        long count = 0;
        long hash = 0;
        try (DigestCursor c = scan.digests(q.span().lo(), q.span().hi())) {
            while (c.next()) {
                Digest d = c.digest();
                if (counted(d, q.horizon())) {
                    count++;
                    hash += entryHash(d);
                }
            }
        }
        return new RepairWire.Summary(count, hash);
    }

    private static RepairWire.Listing list(DigestScan scan, RepairWire.Query q, int cap) {
        List<Digest> out = new ArrayList<>();
        try (DigestCursor c = scan.digests(q.span().lo(), q.span().hi())) {
            while (c.next()) {
                Digest d = c.digest();
                if (counted(d, q.horizon())) {
                    if (out.size() == cap) {
                        return new RepairWire.Listing(out, true);
                    }
                    out.add(d);
                }
            }
        }
        return new RepairWire.Listing(out, false);
    }
}
