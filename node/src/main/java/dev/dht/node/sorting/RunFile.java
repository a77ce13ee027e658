package dev.dht.node.sorting;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A sorted run on disk: {@code [key length][value length][key][value]} per entry, lengths as 4-byte ints, and a key
 * length of -1 at the end (a run cut short is an error, not a shorter run).
 */
final class RunFile {
    private static final int WRITE_BUFFER = 1 << 20;

    private RunFile() {}

    /** Writes every entry of the cursor. */
    static void write(Path file, SortedCursor entries) throws IOException {
        try (OutputStream os = Files.newOutputStream(file);
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(os, WRITE_BUFFER))) {
            while (entries.next()) {
                out.writeInt(entries.keyLength());
                out.writeInt(entries.valueLength());
                out.write(entries.keyBuffer(), entries.keyOffset(), entries.keyLength());
                out.write(entries.valueBuffer(), entries.valueOffset(), entries.valueLength());
            }
            out.writeInt(-1);
        }
    }

    /** Reads a run back, in order, through a buffer of bufferBytes. */
    static SortedCursor read(Path file, int bufferBytes) throws IOException {
        InputStream is = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new BufferedInputStream(is, bufferBytes));
        return new SortedCursor() {
            private byte[] key = new byte[64];
            private byte[] value = new byte[256];
            private int keyLength;
            private int valueLength;
            private boolean done;

            @Override
            public boolean next() throws IOException {
                if (done) {
                    return false;
                }
                int k = in.readInt();
                if (k < 0) {
                    done = true;
                    return false;
                }
                int v = in.readInt();
                if (v < 0) {
                    throw new IOException("corrupt sort run " + file + ": value length " + v);
                }
                if (k > key.length) {
                    key = Arrays.copyOf(key, Math.max(k, key.length * 2));
                }
                if (v > value.length) {
                    value = Arrays.copyOf(value, Math.max(v, value.length * 2));
                }
                in.readFully(key, 0, k);
                in.readFully(value, 0, v);
                keyLength = k;
                valueLength = v;
                return true;
            }

            @Override
            public byte[] keyBuffer() {
                return key;
            }

            @Override
            public int keyOffset() {
                return 0;
            }

            @Override
            public int keyLength() {
                return keyLength;
            }

            @Override
            public byte[] valueBuffer() {
                return value;
            }

            @Override
            public int valueOffset() {
                return 0;
            }

            @Override
            public int valueLength() {
                return valueLength;
            }

            @Override
            public void close() {
                done = true;
                try {
                    in.close();
                } catch (IOException ignored) {
                    // read-only: nothing to lose
                }
            }
        };
    }
}
