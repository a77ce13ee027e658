package dev.dht.node.repair;

import dev.dht.node.storage.Digest;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.Store;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Brings the replicas of some arcs (all of one replica set) into agreement, comparing before sending anything:
 * <ol>
 *   <li>every replica reports each arc's count and hash (its digest index as of the round's start, {@link
 *       RangeSummaries.AsOf}); equal arcs are done;</li>
 *   <li>a differing span with many entries is split in {@value #FANOUT} and the parts compared, until the parts that
 *       differ hold at most {@value #LEAF} entries;</li>
 *   <li>those are listed (key, timestamp, record hash) by every replica, and for each key the newest version is
 *       found; the records go, from one replica that holds them, only to the replicas that hold something older
 *       (or nothing). Receivers apply them last-write-wins, so a write that lands meanwhile is never undone.</li>
 * </ol>
 * Writes in flight: a version newer than the cutoff (a write the coordinator may still be delivering) is neither
 * sent nor counted as a difference; only the newest version at or before the cutoff is made to reach every replica
 * that holds nothing newer. So writes during a round cause no false differences, and every version written before
 * the cutoff is on every replica (or superseded there) once the step succeeds: what the purge horizon relies on.
 *
 * <p>Two uses: repair (every replica behind gets the record) and a rebuild's pull (only this node, cutoff at
 * infinity: it takes everything newer than what it has). Any replica that does not answer fails the step.
 */
final class Reconciliation {
    static final int FANOUT = 16;
    static final int LEAF = 128;
    /** Spans per listing call: bounds one answer's size. */
    static final int SPANS_PER_CALL = 32;

    /** What one step found and did. */
    record Result(int arcs, int arcsOutOfSync, long keysRepaired, long bytesRepaired, long keysDeferred) {}

    private final Store store;
    private final RecordTransfer transfer;
    private final RepairPeers peers;
    private final RepairRanges ranges;
    private final String self;
    private final List<String> members;
    private final boolean pullOnly;
    private final long cutoff;
    private final RangeSummaries.AsOf asOf;
    private final LocalScans scans;

    /**
     * @param members  every replica of the arcs, this node included
     * @param pullOnly a rebuild: only this node receives
     * @param cutoff   versions newer than this timestamp are left alone (Long.MAX_VALUE: none)
     * @param asOf     the moment every replica's digests are read as of: before the cutoff's in-flight window ends
     * @param scans    where this node's own hashes and digests are computed
     */
    Reconciliation(
            Store store,
            RepairPeers peers,
            RepairRanges ranges,
            List<String> members,
            boolean pullOnly,
            long cutoff,
            RangeSummaries.AsOf asOf,
            RepairStats stats,
            LocalScans scans) {
        this.store = store;
        this.scans = scans;
        this.transfer = new RecordTransfer(store, peers, ranges.ringId(), ranges.self(), members, stats);
        this.peers = peers;
        this.ranges = ranges;
        this.self = ranges.self();
        this.members = List.copyOf(members);
        this.pullOnly = pullOnly;
        this.cutoff = cutoff;
        this.asOf = asOf;
    }

    /** One span of an arc under comparison. */
    private record Item(int arc, RepairWire.Query query) {}

    /**
     * Compares and repairs the arcs, each with its purge horizon. Throws when a replica did not answer: then
     * nothing may be recorded as repaired (what was sent stays: it is correct, only incomplete).
     */
    Result run(List<RepairRanges.Arc> arcs, long[] horizons) throws RepairException {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < arcs.size(); i++) {
            for (Span s : arcs.get(i).spans()) {
                items.add(new Item(arcs.get(i).index(), new RepairWire.Query(s, horizons[i])));
            }
        }
        // 1. the arcs' summaries on every replica
        List<List<RepairWire.Summary>> top = summaries(items);
        Map<Integer, Boolean> arcDiffers = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            if (differs(top, i)) {
                arcDiffers.put(items.get(i).arc(), true);
            }
        }
        List<Item> level = new ArrayList<>();
        List<List<RepairWire.Summary>> levelSummaries = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (arcDiffers.containsKey(items.get(i).arc())) {
                level.add(items.get(i));
                levelSummaries.add(column(top, i));
            }
        }
        // 2. narrow down to small spans that differ, and list them
        Map<ByteBuffer, Digest[]> keys = new LinkedHashMap<>();
        while (!level.isEmpty()) {
            List<Item> leaves = new ArrayList<>();
            List<Item> split = new ArrayList<>();
            for (int i = 0; i < level.size(); i++) {
                List<RepairWire.Summary> s = levelSummaries.get(i);
                if (maxCount(s) <= LEAF || level.get(i).query().span().single()) {
                    leaves.add(level.get(i));
                } else {
                    split.add(level.get(i));
                }
            }
            split.addAll(list(leaves, keys)); // a listing cut short (it grew meanwhile) is split instead
            List<Item> children = new ArrayList<>();
            for (Item it : split) {
                for (Span s : it.query().span().split(FANOUT)) {
                    children.add(new Item(
                            it.arc(), new RepairWire.Query(s, it.query().horizon())));
                }
            }
            level = new ArrayList<>();
            levelSummaries = new ArrayList<>();
            if (!children.isEmpty()) {
                List<List<RepairWire.Summary>> sums = summaries(children);
                for (int i = 0; i < children.size(); i++) {
                    if (differs(sums, i)) {
                        level.add(children.get(i));
                        levelSummaries.add(column(sums, i));
                    }
                }
            }
        }
        // 3. the newest version of each key, and who lacks it
        return deliver(arcs.size(), keys);
    }

    // ---- summaries and listings --------------------------------------------------------------------------------

    /** Per member (in members order), the summary of each item. */
    private List<List<RepairWire.Summary>> summaries(List<Item> items) throws RepairException {
        List<RepairWire.Query> queries = new ArrayList<>(items.size());
        for (Item it : items) {
            queries.add(it.query());
        }
        List<RepairPeers.Call> calls = new ArrayList<>();
        for (String m : members) {
            calls.add(m.equals(self) ? null : peers.summaries(m, ranges.ringId(), asOf.at(), queries));
        }
        List<List<RepairWire.Summary>> out = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            if (calls.get(i) == null) {
                out.add(scans.run(() -> RangeSummaries.summarize(store, asOf, queries)));
            } else {
                try {
                    out.add(RepairWire.readSummaries(calls.get(i).body(), queries.size()));
                } catch (IllegalArgumentException e) {
                    throw new RepairException(members.get(i), "bad summaries: " + e.getMessage());
                }
            }
        }
        return out;
    }

    private List<RepairWire.Summary> column(List<List<RepairWire.Summary>> byMember, int item) {
        List<RepairWire.Summary> out = new ArrayList<>(byMember.size());
        for (List<RepairWire.Summary> m : byMember) {
            out.add(m.get(item));
        }
        return out;
    }

    /** Whether the replicas that matter disagree on an item: all of them, or this node against each other one. */
    private boolean differs(List<List<RepairWire.Summary>> byMember, int item) {
        RepairWire.Summary first = byMember.get(0).get(item);
        for (List<RepairWire.Summary> m : byMember) {
            if (!m.get(item).equals(first)) {
                return true;
            }
        }
        return false;
    }

    private static long maxCount(List<RepairWire.Summary> s) {
        long max = 0;
        for (RepairWire.Summary x : s) {
            max = Math.max(max, x.count());
        }
        return max;
    }

    /**
     * Lists the leaves on every replica into keys (per key, each member's digest or null); returns the leaves
     * that some replica had to cut short (they grew past the cap since their summary): those are split.
     */
    private List<Item> list(List<Item> leaves, Map<ByteBuffer, Digest[]> keys) throws RepairException {
        List<Item> tooLarge = new ArrayList<>();
        int cap = 4 * LEAF;
        for (int from = 0; from < leaves.size(); from += SPANS_PER_CALL) {
            List<Item> chunk = leaves.subList(from, Math.min(leaves.size(), from + SPANS_PER_CALL));
            List<RepairWire.Query> queries = new ArrayList<>();
            for (Item it : chunk) {
                queries.add(it.query());
            }
            List<RepairPeers.Call> calls = new ArrayList<>();
            for (String m : members) {
                calls.add(m.equals(self) ? null : peers.listings(m, ranges.ringId(), asOf.at(), cap, queries));
            }
            List<List<RepairWire.Listing>> byMember = new ArrayList<>();
            for (int i = 0; i < members.size(); i++) {
                if (calls.get(i) == null) {
                    byMember.add(scans.run(() -> RangeSummaries.list(store, asOf, queries, cap)));
                } else {
                    try {
                        byMember.add(RepairWire.readListings(calls.get(i).body(), queries.size()));
                    } catch (IllegalArgumentException e) {
                        throw new RepairException(members.get(i), "bad listing: " + e.getMessage());
                    }
                }
            }
            for (int s = 0; s < chunk.size(); s++) {
                boolean truncated = false;
                for (List<RepairWire.Listing> m : byMember) {
                    truncated |= m.get(s).truncated();
                }
                if (truncated && !chunk.get(s).query().span().single()) {
                    tooLarge.add(chunk.get(s));
                    continue;
                }
                for (int i = 0; i < members.size(); i++) {
                    for (Digest d : byMember.get(i).get(s).digests()) {
                        keys.computeIfAbsent(ByteBuffer.wrap(d.key()), k -> new Digest[members.size()])[i] = d;
                    }
                }
            }
        }
        return tooLarge;
    }

    // ---- deciding and sending ----------------------------------------------------------------------------------

    /** A record one replica holds and others need. */
    private record Need(byte[] key, int source, List<Integer> targets, List<Integer> tied) {}

    private Result deliver(int arcCount, Map<ByteBuffer, Digest[]> keys) throws RepairException {
        int me = members.indexOf(self);
        List<Need> needs = new ArrayList<>();
        long deferred = 0;
        for (Map.Entry<ByteBuffer, Digest[]> e : keys.entrySet()) {
            Digest[] v = e.getValue();
            // the newest version at or before the cutoff; versions after it may still be on their way
            Digest newest = null;
            boolean later = false;
            for (Digest d : v) {
                if (d == null) {
                    continue;
                }
                if (d.timestamp() > cutoff) {
                    later = true;
                } else if (newest == null || d.compareVersion(newest) > 0) {
                    newest = d;
                }
            }
            if (newest == null) {
                if (later) {
                    deferred++;
                }
                continue;
            }
            List<Integer> targets = new ArrayList<>();
            List<Integer> tied = new ArrayList<>();
            int source = -1;
            for (int i = 0; i < v.length; i++) {
                Digest d = v[i];
                if (d != null && d.timestamp() > cutoff) {
                    continue; // holds something newer: never behind
                }
                if (d != null && d.sameVersion(newest)) {
                    if (source < 0 || i == me) {
                        source = i;
                    }
                } else if (d != null && d.compareVersion(newest) == 0) {
                    tied.add(i); // same timestamp, another record: the records decide
                } else if (!pullOnly || i == me) {
                    targets.add(i);
                }
            }
            if (later && targets.isEmpty() && tied.isEmpty()) {
                deferred++;
            }
            if (!tied.isEmpty()) {
                tied.add(source);
                needs.add(new Need(e.getKey().array(), source, targets, tied));
            } else if (!targets.isEmpty()) {
                needs.add(new Need(e.getKey().array(), source, targets, List.of()));
            }
        }
        if (needs.isEmpty()) {
            return new Result(arcCount, 0, 0, 0, deferred);
        }
        Map<ByteBuffer, Record> records = transfer.fetch(sources(needs));
        // per target member, the records it lacks
        List<List<byte[]>> outKeys = new ArrayList<>();
        List<List<Record>> outRecords = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            outKeys.add(new ArrayList<>());
            outRecords.add(new ArrayList<>());
        }
        Set<Integer> arcsOut = new HashSet<>();
        for (Need n : needs) {
            Record r = records.get(ByteBuffer.wrap(n.key()));
            if (r == null) {
                continue; // gone from its source meanwhile (purged): nothing to send
            }
            List<Integer> targets = new ArrayList<>(n.targets());
            if (!n.tied().isEmpty()) {
                // equal timestamps, different records: every tied replica that does not hold the winner needs it
                for (int i : n.tied()) {
                    if (i >= 0 && (!pullOnly || i == me) && !sameRecord(keys.get(ByteBuffer.wrap(n.key()))[i], r)) {
                        targets.add(i);
                    }
                }
            }
            for (int t : targets) {
                outKeys.get(t).add(n.key());
                outRecords.get(t).add(r);
            }
            if (!targets.isEmpty()) {
                arcsOut.add(ranges.arcOf(dev.dht.node.ring.XxHash64.hash(n.key())));
            }
        }
        long[] sent = transfer.push(outKeys, outRecords);
        return new Result(arcCount, arcsOut.size(), sent[0], sent[1], deferred);
    }

    private static boolean sameRecord(Digest d, Record r) {
        return d != null && d.sameVersion(Digest.of(d.key(), r));
    }

    /** Which keys to read from which replica (by index in members): the winner of a tie from every tied one. */
    private static Map<Integer, List<byte[]>> sources(List<Need> needs) {
        Map<Integer, List<byte[]>> bySource = new LinkedHashMap<>();
        for (Need n : needs) {
            List<Integer> from = n.tied().isEmpty() ? List.of(n.source()) : n.tied();
            for (int s : from) {
                if (s >= 0) {
                    bySource.computeIfAbsent(s, k -> new ArrayList<>()).add(n.key());
                }
            }
        }
        return bySource;
    }
}
