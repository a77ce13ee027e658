package dev.dht.node.objectstore;

import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.function.BooleanSupplier;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Client-side encryption of backed-up files: a streaming AEAD, so that files of any size stream through in constant
 * memory and every segment is authenticated (docs/security.md, "Backups": the review of both formats).
 *
 * <p>Objects are written as {@code DHTENC02}: a 16-byte header ({@code "DHTENC02"}, the key id) followed by exactly
 * the ciphertext of Tink's streaming AEAD {@code AES256_GCM_HKDF_1MB} (AesGcmHkdfStreaming: a 40-byte stream header
 * with a random 32-byte salt and 7-byte nonce prefix; each object's AES-256 key derived with HKDF-SHA256 from the
 * backup key, the salt, and the 16-byte header as associated data; 1 MiB segments, each AES-GCM with the nonce
 * prefix || segment number || last-segment flag). Written here rather than by Tink's library because a multipart
 * upload resumed after a restart must produce the same bytes again, from any part on, with the salt and nonce
 * prefix it saved; Tink draws them itself. {@code EncryptionTest} checks that Tink decrypts what this writes and
 * that this decrypts what Tink writes.
 *
 * <p>Objects written before (release f09ee83 and earlier) are {@code DHTENC01}, still read: a 24-byte header
 * ({@code "DHTENC01"}, key id, a random 8-byte nonce base), then 64 KiB chunks, each AES-256-GCM under the backup
 * key itself with nonce = base || chunk number and the header plus a last-chunk flag as additional data.
 *
 * <p>The backup key, the naming key (content names are HMACs under it) and the key id are derived from the key
 * file's bytes with HMAC-SHA256 under distinct labels.
 */
public final class Encryption implements ObjectCodec {
    static final byte[] MAGIC = "DHTENC02".getBytes(StandardCharsets.US_ASCII);
    static final byte[] MAGIC_V1 = "DHTENC01".getBytes(StandardCharsets.US_ASCII);
    /** The object header: magic, key id. */
    static final int HEADER = 16;

    static final int TAG = 16;
    /** Tink's AES256_GCM_HKDF_1MB: ciphertext segment, salt (the AES key's size), nonce prefix. */
    static final int SEGMENT = 1 << 20;

    static final int SALT = 32;
    static final int NONCE_PREFIX = 7;
    static final int STREAM_HEADER = 1 + SALT + NONCE_PREFIX;
    /** Plain bytes per segment: the first holds the stream header too. */
    static final int PLAIN = SEGMENT - TAG;

    static final int FIRST_PLAIN = PLAIN - STREAM_HEADER;
    /** DHTENC01: header (magic, key id, nonce base) and plain bytes per chunk. */
    static final int V1_HEADER = 24;

    static final int V1_CHUNK = 64 << 10;
    /** Shorter key files are refused: a key should be random bytes (openssl rand 32 > key). */
    public static final int MIN_KEY_BYTES = 16;

    private final byte[] backupKey;
    private final byte[] namingKey;
    private final byte[] keyId;
    private final byte[] header;
    private final SecureRandom random = new SecureRandom();
    /** Whether new objects are DHTENC02 (else DHTENC01: the cluster's feature level is below 2). */
    private final BooleanSupplier newFormat;

    private final ObjectCodec legacy;

    /** Writes DHTENC02. */
    public Encryption(byte[] secret) {
        this(secret, () -> true);
    }

    /** @param newFormat whether new objects are DHTENC02 now; DHTENC01, which release 0.1.0 reads, when not */
    public Encryption(byte[] secret, BooleanSupplier newFormat) {
        this.newFormat = newFormat;
        this.legacy = new Dhtenc01Writer(this);
        if (secret.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException(
                    "an encryption key needs at least " + MIN_KEY_BYTES + " bytes, got " + secret.length);
        }
        this.backupKey = hmac(secret, "dht backup encryption".getBytes(StandardCharsets.UTF_8));
        this.namingKey = hmac(secret, "dht backup naming".getBytes(StandardCharsets.UTF_8));
        this.keyId = Arrays.copyOf(hmac(secret, "dht backup key id".getBytes(StandardCharsets.UTF_8)), 8);
        this.header = new byte[HEADER];
        System.arraycopy(MAGIC, 0, header, 0, 8);
        System.arraycopy(keyId, 0, header, 8, 8);
    }

    /** The key in a file (a mounted Secret), trailing whitespace ignored; writes DHTENC02. */
    public static Encryption fromFile(Path file) throws IOException {
        return fromFile(file, () -> true);
    }

    /** As {@link #fromFile(Path)}, writing DHTENC02 only while newFormat says so. */
    public static Encryption fromFile(Path file, BooleanSupplier newFormat) throws IOException {
        byte[] raw = Files.readAllBytes(file);
        int n = raw.length;
        while (n > 0 && Character.isWhitespace(raw[n - 1])) {
            n--;
        }
        try {
            return new Encryption(Arrays.copyOf(raw, n), newFormat);
        } catch (IllegalArgumentException e) {
            throw new IOException("encryption key file " + file + ": " + e.getMessage());
        }
    }

    static byte[] hmac(byte[] key, byte[]... data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            for (byte[] d : data) {
                mac.update(d);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** HKDF-SHA256 (RFC 5869) of 32 bytes, as Tink derives a segment key: extract with the salt, expand with info. */
    static byte[] hkdf(byte[] ikm, byte[] salt, byte[] info) {
        byte[] prk = hmac(salt, ikm);
        return hmac(prk, info, new byte[] {1});
    }

    @Override
    public ObjectCodec writing() {
        return newFormat.getAsBoolean() ? this : legacy;
    }

    /** The 8-byte key id (DHTENC01's header). */
    byte[] keyIdBytes() {
        return keyId.clone();
    }

    @Override
    public String keyId() {
        return HexFormat.of().formatHex(keyId);
    }

    /** The backup key (Tink's key material in EncryptionTest's cross-check). */
    byte[] backupKey() {
        return backupKey.clone();
    }

    @Override
    public Digest digest() {
        Mac mac;
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(namingKey, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        return new Digest() {
            @Override
            public void update(byte[] b, int off, int len) {
                mac.update(b, off, len);
            }

            @Override
            public String finish() {
                return HexFormat.of().formatHex(mac.doFinal());
            }
        };
    }

    @Override
    public long storedLength(long plainLength) {
        long total = plainLength + STREAM_HEADER;
        long last = total % PLAIN;
        return HEADER + total / PLAIN * SEGMENT + (last > 0 ? last + TAG : 0);
    }

    /** What a DHTENC01 object of a file of plainLength bytes holds. */
    static long storedLengthV1(long plainLength) {
        long chunks = plainLength == 0 ? 1 : (plainLength + V1_CHUNK - 1) / V1_CHUNK;
        return V1_HEADER + chunks * TAG + plainLength;
    }

    @Override
    public boolean holds(long plainLength, long storedLength) {
        return storedLength == storedLength(plainLength) || storedLength == storedLengthV1(plainLength);
    }

    @Override
    public Encoder encoder() {
        byte[] saved = new byte[SALT + NONCE_PREFIX];
        random.nextBytes(saved);
        return new SegmentEncoder(saved);
    }

    @Override
    public Encoder encoder(byte[] saved) throws IOException {
        if (saved.length == Dhtenc01Writer.SAVED) { // an upload begun below feature level 2 goes on as it began
            return legacy.encoder(saved);
        }
        if (saved.length != SALT + NONCE_PREFIX) {
            throw new IOException(
                    "saved encryption parameters of " + saved.length + " bytes, not " + (SALT + NONCE_PREFIX));
        }
        return new SegmentEncoder(saved.clone());
    }

    @Override
    public InputStream decode(InputStream stored) throws IOException {
        byte[] head = stored.readNBytes(HEADER);
        boolean v1 = head.length == HEADER && Arrays.equals(head, 0, 8, MAGIC_V1, 0, 8);
        if (head.length < HEADER || !v1 && !Arrays.equals(head, 0, 8, MAGIC, 0, 8)) {
            throw new IOException("not an object encrypted by dht (no DHTENC02 or DHTENC01 header): was the backup"
                    + " made without encryption?");
        }
        if (!Arrays.equals(head, 8, 16, keyId, 0, 8)) {
            throw new IOException(
                    "the object was encrypted with key " + HexFormat.of().formatHex(head, 8, 16)
                            + ", this node's key is " + keyId() + ": wrong encryption key");
        }
        PushbackInputStream in = new PushbackInputStream(stored, 1);
        if (v1) {
            byte[] v1Header = Arrays.copyOf(head, V1_HEADER);
            byte[] base = in.readNBytes(8);
            if (base.length < 8) {
                throw new IOException("a DHTENC01 object cut short in its header");
            }
            System.arraycopy(base, 0, v1Header, HEADER, 8);
            return new Segments(in, false, new SecretKeySpec(backupKey, "AES"), base, 0) {
                @Override
                int capacity(long segment) {
                    return V1_CHUNK;
                }

                @Override
                byte[] crypt(byte[] in, long segment, boolean last) throws IOException {
                    return gcm(
                            Cipher.DECRYPT_MODE, key, nonce(prefix, segment, last, true), v1Header, last, in, segment);
                }
            };
        }
        int length = in.read();
        byte[] params = in.readNBytes(SALT + NONCE_PREFIX);
        if (length != STREAM_HEADER || params.length < SALT + NONCE_PREFIX) {
            throw new IOException("a DHTENC02 object with a damaged stream header");
        }
        return new Segments(in, false, segmentKey(params), Arrays.copyOfRange(params, SALT, params.length), 0) {
            @Override
            byte[] crypt(byte[] in, long segment, boolean last) throws IOException {
                return gcm(Cipher.DECRYPT_MODE, key, nonce(prefix, segment, last, false), null, last, in, segment);
            }
        };
    }

    private SecretKeySpec segmentKey(byte[] params) {
        return new SecretKeySpec(hkdf(backupKey, Arrays.copyOf(params, SALT), header), "AES");
    }

    /** GCM's 12-byte nonce: DHTENC02 prefix(7) || segment(4) || last(1); DHTENC01 base(8) || chunk(4). */
    static byte[] nonce(byte[] prefix, long segment, boolean last, boolean v1) {
        byte[] nonce = new byte[12];
        System.arraycopy(prefix, 0, nonce, 0, prefix.length);
        int at = prefix.length;
        nonce[at] = (byte) (segment >>> 24);
        nonce[at + 1] = (byte) (segment >>> 16);
        nonce[at + 2] = (byte) (segment >>> 8);
        nonce[at + 3] = (byte) segment;
        if (!v1) {
            nonce[11] = (byte) (last ? 1 : 0);
        }
        return nonce;
    }

    /** One segment through AES-GCM; v1's additional data is its header and the last flag, v2 has none. */
    static byte[] gcm(int mode, SecretKeySpec key, byte[] nonce, byte[] v1Header, boolean last, byte[] in, long segment)
            throws IOException {
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(mode, key, new GCMParameterSpec(TAG * 8, nonce));
            if (v1Header != null) {
                c.updateAAD(v1Header);
                c.updateAAD(new byte[] {(byte) (last ? 1 : 0)});
            }
            return c.doFinal(in);
        } catch (GeneralSecurityException e) {
            throw new IOException(
                    "cannot decrypt segment " + segment + " (damaged, truncated or reordered object,"
                            + " or a wrong key): " + e.getMessage(),
                    e);
        }
    }

    /** A DHTENC02 object's encoding: its salt and nonce prefix, fixed, so any part can be produced again. */
    private final class SegmentEncoder implements Encoder {
        private final byte[] saved;
        private final SecretKeySpec key;
        private final byte[] streamHeader = new byte[STREAM_HEADER];

        SegmentEncoder(byte[] saved) {
            this.saved = saved;
            this.key = segmentKey(saved);
            streamHeader[0] = (byte) STREAM_HEADER;
            System.arraycopy(saved, 0, streamHeader, 1, saved.length);
        }

        @Override
        public byte[] saved() {
            return saved.clone();
        }

        @Override
        public InputStream open(PlainSource plain, long storedOffset) throws IOException {
            long p = Math.max(0, storedOffset - HEADER);
            long segment = p / SEGMENT;
            long plainStart = segment == 0 ? 0 : FIRST_PLAIN + (segment - 1) * PLAIN;
            Segments s =
                    new Segments(
                            new PushbackInputStream(plain.open(plainStart), 1),
                            true,
                            key,
                            Arrays.copyOfRange(saved, SALT, saved.length),
                            segment) {
                        @Override
                        byte[] crypt(byte[] in, long segment, boolean last) throws IOException {
                            byte[] out = gcm(
                                    Cipher.ENCRYPT_MODE,
                                    key,
                                    nonce(prefix, segment, last, false),
                                    null,
                                    last,
                                    in,
                                    segment);
                            if (segment != 0) {
                                return out;
                            }
                            byte[] first = new byte[HEADER + STREAM_HEADER + out.length];
                            System.arraycopy(header, 0, first, 0, HEADER);
                            System.arraycopy(streamHeader, 0, first, HEADER, STREAM_HEADER);
                            System.arraycopy(out, 0, first, HEADER + STREAM_HEADER, out.length);
                            return first;
                        }
                    };
            // segment 0 carries both headers; a later one starts at HEADER + its place in the stream
            long segmentStart = segment == 0 ? 0 : HEADER + segment * SEGMENT;
            s.skipNBytes(storedOffset - segmentStart);
            return s;
        }
    }

    /** Encrypts or decrypts segment by segment as it is read. */
    abstract static class Segments extends InputStream {
        private final PushbackInputStream in;
        private final boolean encrypt;
        final SecretKeySpec key;
        final byte[] prefix;
        private long segment;
        private byte[] out = new byte[0];
        private int pos;
        private boolean done;

        Segments(PushbackInputStream in, boolean encrypt, SecretKeySpec key, byte[] prefix, long segment) {
            this.in = in;
            this.encrypt = encrypt;
            this.key = key;
            this.prefix = prefix;
            this.segment = segment;
        }

        /** Plain bytes in a segment. */
        int capacity(long segment) {
            return segment == 0 ? FIRST_PLAIN : PLAIN;
        }

        abstract byte[] crypt(byte[] in, long segment, boolean last) throws IOException;

        private boolean fill() throws IOException {
            while (pos >= out.length) {
                if (done) {
                    return false;
                }
                int size = capacity(segment) + (encrypt ? 0 : TAG);
                byte[] chunk = in.readNBytes(size);
                boolean last = true;
                if (chunk.length == size) {
                    int next = in.read();
                    if (next >= 0) {
                        in.unread(next);
                        last = false;
                    }
                }
                if (segment > 0xFFFFFFFFL) {
                    throw new IOException("an object of more than 2^32 segments");
                }
                out = crypt(chunk, segment++, last);
                pos = 0;
                done = last;
            }
            return true;
        }

        @Override
        public int read() throws IOException {
            return fill() ? out[pos++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (!fill()) {
                return -1;
            }
            int n = Math.min(len, out.length - pos);
            System.arraycopy(out, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
