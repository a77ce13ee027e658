package dev.dht.node.replication;

import dev.dht.node.http.ChunkSource;
import dev.dht.node.storage.Record;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The k-way merge behind the cluster range: every member's records in key order go in, and out comes each key once
 * with its newest version (last write wins, as for a GET), tombstones dropped. Pulled by the chunked body writer
 * as the client reads, so it holds one record per member at any time.
 */
final class MergedRange implements ChunkSource {
    private final List<RangeSource> sources;
    private final PriorityQueue<RangeSource> heads =
            new PriorityQueue<>((a, b) -> Arrays.compareUnsigned(a.key(), b.key()));
    private boolean started;
    private byte[] key;
    private Record record;

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
                key = k;
                record = newest;
                return true;
            }
        }
        key = null;
        record = null;
        return false;
    }

    private void advance(RangeSource s) {
        if (s.advance()) {
            heads.add(s);
        }
    }

    @Override
    public byte[] key() {
        return key;
    }

    @Override
    public byte[] valueArray() {
        return record.encoded();
    }

    @Override
    public int valueOffset() {
        return record.valueOffset();
    }

    @Override
    public int valueLength() {
        return record.valueLength();
    }

    @Override
    public void close() {
        for (RangeSource s : sources) {
            s.close();
        }
    }
}
