package dev.dht.node.replication;

import dev.dht.node.api.RecordChunkSource;
import dev.dht.node.storage.Record;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The k-way merge behind the cluster range: every member's records in key order go in, and out comes each key once
 * with its newest version (last write wins, as for a GET), tombstones dropped. Pulled by the chunked body writer
 * as the client reads, so it holds one record per member at any time.
 */
final class MergedRange extends RecordChunkSource {
    private final List<RangeSource> sources;
    private final PriorityQueue<RangeSource> heads =
            new PriorityQueue<>((a, b) -> Arrays.compareUnsigned(a.key(), b.key()));
    private boolean started;

    MergedRange(List<RangeSource> sources) {
        this.sources = sources;
    }

    @Override
    public boolean next() {
        if (!started) {
            started = true;
            for (RangeSource s : sources) {
                if (s.advance()) {
                    heads.add(s);
                }
            }
        }
        while (!heads.isEmpty()) {
            RangeSource first = heads.poll();
            byte[] k = first.key();
            Record newest = first.record();
            advance(first);
            while (!heads.isEmpty() && Arrays.equals(heads.peek().key(), k)) {
                RangeSource same = heads.poll();
                if (same.record().supersedes(newest)) {
                    newest = same.record();
                }
                advance(same);
            }
            if (!newest.isTombstone()) {
                return at(k, newest);
            }
        }
        return end();
    }

    private void advance(RangeSource s) {
        if (s.advance()) {
            heads.add(s);
        }
    }

    @Override
    public void close() {
        for (RangeSource s : sources) {
            s.close();
        }
    }
}
