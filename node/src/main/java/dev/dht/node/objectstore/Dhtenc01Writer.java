package dev.dht.node.objectstore;

import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;

/**
 * Writes {@link Encryption}'s older format, DHTENC01 (the only one release 0.1.0 reads), for a cluster below feature
 * level 2 (docs/upgrading.md): a 24-byte header (magic, key id, random 8-byte nonce base), then 64 KiB chunks, each
 * AES-256-GCM under the backup key with nonce = base || chunk number and the header plus a last-chunk flag as
 * additional data. Encryption's decoder reads it (and 0.1.0's own backups: OldBackupRestoreIT's fixtures). Like
 * DHTENC02 it can produce an object again from any offset with the parameters it saved (the nonce base), so a
 * multipart upload resumes.
 */
final class Dhtenc01Writer implements ObjectCodec {
    /** Saved parameters: the nonce base. */
    static final int SAVED = 8;

    private static final int STORED_CHUNK = Encryption.V1_CHUNK + Encryption.TAG;

    private final Encryption encryption;
    private final SecureRandom random = new SecureRandom();

    Dhtenc01Writer(Encryption encryption) {
        this.encryption = encryption;
    }

    @Override
    public String keyId() {
        return encryption.keyId();
    }

    @Override
    public Digest digest() {
        return encryption.digest();
    }

    @Override
    public long storedLength(long plainLength) {
        return Encryption.storedLengthV1(plainLength);
    }

    /** Only a DHTENC01 object will do: a DHTENC02 one of the same file is written again, for 0.1.0 to read. */
    @Override
    public boolean holds(long plainLength, long storedLength) {
        return storedLength == Encryption.storedLengthV1(plainLength);
    }

    @Override
    public Encoder encoder() {
        byte[] base = new byte[SAVED];
        random.nextBytes(base);
        return new ChunkEncoder(base);
    }

    @Override
    public Encoder encoder(byte[] saved) throws IOException {
        if (saved.length != SAVED) {
            throw new IOException("saved DHTENC01 parameters of " + saved.length + " bytes, not " + SAVED);
        }
        return new ChunkEncoder(saved.clone());
    }

    @Override
    public InputStream decode(InputStream stored) throws IOException {
        return encryption.decode(stored);
    }

    private final class ChunkEncoder implements Encoder {
        private final byte[] base;
        private final byte[] header = new byte[Encryption.V1_HEADER];
        private final SecretKeySpec key;

        ChunkEncoder(byte[] base) {
            this.base = base;
            System.arraycopy(Encryption.MAGIC_V1, 0, header, 0, 8);
            System.arraycopy(encryption.keyIdBytes(), 0, header, 8, 8);
            System.arraycopy(base, 0, header, 16, SAVED);
            this.key = new SecretKeySpec(encryption.backupKey(), "AES");
        }

        @Override
        public byte[] saved() {
            return base.clone();
        }

        @Override
        public InputStream open(PlainSource plain, long storedOffset) throws IOException {
            long chunk = Math.max(0, storedOffset - Encryption.V1_HEADER) / STORED_CHUNK;
            InputStream s =
                    new Encryption.Segments(
                            new PushbackInputStream(plain.open(chunk * Encryption.V1_CHUNK), 1),
                            true,
                            key,
                            base,
                            chunk) {
                        @Override
                        int capacity(long segment) {
                            return Encryption.V1_CHUNK;
                        }

                        @Override
                        byte[] crypt(byte[] in, long segment, boolean last) throws IOException {
                            byte[] out = Encryption.gcm(
                                    Cipher.ENCRYPT_MODE,
                                    key,
                                    Encryption.nonce(prefix, segment, last, true),
                                    header,
                                    last,
                                    in,
                                    segment);
                            if (segment != 0) {
                                return out;
                            }
                            byte[] first = Arrays.copyOf(header, header.length + out.length);
                            System.arraycopy(out, 0, first, header.length, out.length);
                            return first;
                        }
                    };
            // chunk 0 carries the header; a later one starts at the header + its place among the chunks
            long chunkStart = chunk == 0 ? 0 : Encryption.V1_HEADER + chunk * STORED_CHUNK;
            s.skipNBytes(storedOffset - chunkStart);
            return s;
        }
    }
}
