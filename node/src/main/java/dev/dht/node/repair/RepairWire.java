package dev.dht.node.repair;

import dev.dht.node.storage.Digest;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Bodies of the repair calls between members (docs/cluster.md, "Repair: the protocol"), all big-endian binary:
 * <pre>
 *   span query  int n, then n x (lo, hi, horizon: 8 bytes each)   a tombstone older than horizon counts as absent
 *   hashes      n x (count, hash: 8 bytes each), one per span
 *   digests     int cap, a span query; answer: per span int count, byte truncated, count x (int key length, key,
 *               timestamp 8, flags 1, record hash 8)
 *   keys        int n, then n x (int length, key)                  what to fetch; the answer is a record batch
 *   done        repairedAt 8, int n, then n x int arc index
 * </pre>
 * A malformed body is an IllegalArgumentException (the endpoint answers 400).
 */
final class RepairWire {
    /** Keys longer than this are refused (the node's own ids are far shorter). */
    static final int MAX_KEY = 1 << 20;

    private RepairWire() {}

    /** One span of a query, with the purge horizon that applies to it. */
    record Query(Span span, long horizon) {}

    /** A span's summary on one replica: how many entries, and their combined hash. */
    record Summary(long count, long hash) {}

    /** The digests of one span on one replica; truncated when it holds more than the cap. */
    record Listing(List<Digest> digests, boolean truncated) {}

    static byte[] queries(List<Query> queries) {
        return write(out -> {
            out.writeInt(queries.size());
            for (Query q : queries) {
                out.writeLong(q.span().lo());
                out.writeLong(q.span().hi());
                out.writeLong(q.horizon());
            }
        });
    }

    static List<Query> readQueries(ByteBuffer in) {
        int n = count(in, 24);
        List<Query> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long lo = in.getLong();
            long hi = in.getLong();
            long horizon = in.getLong();
            if (Long.compareUnsigned(lo, hi) > 0) {
                throw new IllegalArgumentException("span " + i + " is empty");
            }
            out.add(new Query(new Span(lo, hi), horizon));
        }
        return out;
    }

    static byte[] summaries(List<Summary> summaries) {
        return write(out -> {
            for (Summary s : summaries) {
                out.writeLong(s.count());
                out.writeLong(s.hash());
            }
        });
    }

    static List<Summary> readSummaries(byte[] body, int expected) {
        ByteBuffer in = ByteBuffer.wrap(body);
        if (body.length != expected * 16) {
            throw new IllegalArgumentException(body.length + " bytes of summaries for " + expected + " spans");
        }
        List<Summary> out = new ArrayList<>(expected);
        for (int i = 0; i < expected; i++) {
            out.add(new Summary(in.getLong(), in.getLong()));
        }
        return out;
    }

    static byte[] digestQuery(int cap, List<Query> queries) {
        byte[] q = queries(queries);
        ByteBuffer b = ByteBuffer.allocate(4 + q.length);
        b.putInt(cap).put(q);
        return b.array();
    }

    static byte[] listings(List<Listing> listings) {
        return write(out -> {
            for (Listing l : listings) {
                out.writeInt(l.digests().size());
                out.writeByte(l.truncated() ? 1 : 0);
                for (Digest d : l.digests()) {
                    out.writeInt(d.key().length);
                    out.write(d.key());
                    out.writeLong(d.timestamp());
                    out.writeByte(d.tombstone() ? 1 : 0);
                    out.writeLong(d.recordHash());
                }
            }
        });
    }

    static List<Listing> readListings(byte[] body, int expected) {
        ByteBuffer in = ByteBuffer.wrap(body);
        try {
            List<Listing> out = new ArrayList<>(expected);
            for (int i = 0; i < expected; i++) {
                int n = count(in, 21);
                boolean truncated = in.get() != 0;
                List<Digest> digests = new ArrayList<>(n);
                for (int j = 0; j < n; j++) {
                    byte[] key = key(in);
                    long ts = in.getLong();
                    boolean tombstone = in.get() != 0;
                    long recordHash = in.getLong();
                    digests.add(new Digest(dev.dht.node.ring.XxHash64.hash(key), key, ts, tombstone, recordHash));
                }
                out.add(new Listing(digests, truncated));
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " bytes after the last listing");
            }
            return out;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated listing", e);
        }
    }

    static byte[] keys(List<byte[]> keys) {
        return write(out -> {
            out.writeInt(keys.size());
            for (byte[] k : keys) {
                out.writeInt(k.length);
                out.write(k);
            }
        });
    }

    static List<byte[]> readKeys(ByteBuffer in) {
        int n = count(in, 5);
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(key(in));
        }
        return out;
    }

    static byte[] done(long repairedAt, List<Integer> arcs) {
        return write(out -> {
            out.writeLong(repairedAt);
            out.writeInt(arcs.size());
            for (int a : arcs) {
                out.writeInt(a);
            }
        });
    }

    /** A done body: the time and the arc indexes. */
    record Done(long repairedAt, List<Integer> arcs) {}

    static Done readDone(ByteBuffer in) {
        long at = in.getLong();
        int n = count(in, 4);
        List<Integer> arcs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            arcs.add(in.getInt());
        }
        return new Done(at, arcs);
    }

    /** Reads an element count and checks that the body can hold that many elements of at least minSize bytes. */
    private static int count(ByteBuffer in, int minSize) {
        if (in.remaining() < 4) {
            throw new IllegalArgumentException("truncated body");
        }
        int n = in.getInt();
        if (n < 0 || (long) n * minSize > in.remaining()) {
            throw new IllegalArgumentException("bad count " + n);
        }
        return n;
    }

    private static byte[] key(ByteBuffer in) {
        int len = in.getInt();
        if (len <= 0 || len > MAX_KEY || len > in.remaining()) {
            throw new IllegalArgumentException("bad key length " + len);
        }
        byte[] k = new byte[len];
        in.get(k);
        return k;
    }

    @FunctionalInterface
    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen in memory
        }
        return bytes.toByteArray();
    }
}
