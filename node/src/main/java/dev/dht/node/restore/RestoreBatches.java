package dev.dht.node.restore;

import static dev.dht.node.movement.RecordBatch.lengthAt;

import dev.dht.node.storage.Record;
import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.function.LongPredicate;

/**
 * Reads record batches (frames: key length, key, record length, encoded record; see {@code movement.RecordBatch})
 * in place, without an object per record: checking one as it arrives, counting and listing the records of one kept
 * in a journal.
 */
final class RestoreBatches {
    private RestoreBatches() {}

    /** Takes one record of a batch: the key and the encoded record, as ranges of the batch's bytes. */
    @FunctionalInterface
    interface Sink {
        void add(byte[] key, int keyOffset, int keyLength, byte[] record, int recordOffset, int recordLength)
                throws IOException;
    }

    /** A batch as it will be kept: the bytes (those received, or a copy without the records refused), its counts. */
    record Checked(byte[] bytes, int count, int refused) {}

    /**
     * Checks a batch as received: well-formed frames, records this version can read, keys strictly ascending (a
     * member sends each batch in key order: that is what lets a sort merge them cheaply). A record whose timestamp
     * the clock refuses (beyond --max-clock-ahead) is left out, as a move leaves it out.
     *
     * @throws IllegalArgumentException the batch is not well formed, with where
     */
    static Checked check(byte[] body, LongPredicate timestampAccepted) {
        int count = 0;
        BitSet refused = new BitSet();
        int previousKey = -1;
        int previousLength = 0;
        int p = 0;
        for (int index = 0; p < body.length; index++) {
            int keyLength = lengthAt(body, p);
            if (keyLength <= 0 || keyLength > body.length - p - 4) {
                throw new IllegalArgumentException("bad key length " + keyLength + " at byte " + p);
            }
            int key = p + 4;
            if (previousKey >= 0
                    && Arrays.compareUnsigned(
                                    body, previousKey, previousKey + previousLength, body, key, key + keyLength)
                            >= 0) {
                throw new IllegalArgumentException("keys not in ascending order at byte " + p);
            }
            previousKey = key;
            previousLength = keyLength;
            p = key + keyLength;
            int recordLength = lengthAt(body, p);
            if (recordLength > body.length - p - 4) {
                throw new IllegalArgumentException("bad record length " + recordLength + " at byte " + p);
            }
            int record = p + 4;
            try {
                Record.check(body, record, recordLength);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(e.getMessage() + " at byte " + record);
            }
            if (timestampAccepted.test(Record.timestampAt(body, record))) {
                count++;
            } else {
                refused.set(index);
            }
            p = record + recordLength;
        }
        return refused.isEmpty()
                ? new Checked(body, count, 0)
                : new Checked(without(body, refused), count, refused.cardinality());
    }

    /** The batch without the records flagged (by their index). */
    private static byte[] without(byte[] body, BitSet out) {
        byte[] kept = new byte[body.length];
        int n = 0;
        int p = 0;
        for (int index = 0; p < body.length; index++) {
            int start = p;
            p += 4 + lengthAt(body, p);
            p += 4 + lengthAt(body, p);
            if (!out.get(index)) {
                System.arraycopy(body, start, kept, n, p - start);
                n += p - start;
            }
        }
        return Arrays.copyOf(kept, n);
    }

    /** The first key of a batch (checked, not empty). */
    static byte[] firstKey(byte[] batch) {
        return Arrays.copyOfRange(batch, 4, 4 + lengthAt(batch, 0));
    }

    /** The last key of a batch of length bytes (checked, not empty). */
    static byte[] lastKey(byte[] batch, int length) {
        int p = 0;
        int key = 0;
        int keyLength = 0;
        while (p < length) {
            keyLength = lengthAt(batch, p);
            key = p + 4;
            p = key + keyLength;
            p += 4 + lengthAt(batch, p);
        }
        return Arrays.copyOfRange(batch, key, key + keyLength);
    }

    /** The records of a batch kept in a journal (checked when it arrived). */
    static int count(byte[] batch, int length) {
        int n = 0;
        int p = 0;
        while (p < length) {
            p += 4 + lengthAt(batch, p);
            p += 4 + lengthAt(batch, p);
            n++;
        }
        return n;
    }

    /** Hands every record of a batch kept in a journal to the sink. */
    static void forEach(byte[] batch, int length, Sink sink) throws IOException {
        int p = 0;
        while (p < length) {
            int keyLength = lengthAt(batch, p);
            int key = p + 4;
            int recordLength = lengthAt(batch, key + keyLength);
            int record = key + keyLength + 4;
            sink.add(batch, key, keyLength, batch, record, recordLength);
            p = record + recordLength;
        }
    }
}
