package dev.dht.node.objectstore;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
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

/**
 * Client-side encryption of backed-up files: AES-256-GCM in chunks of 64 KiB, so that files of any size stream
 * through in constant memory and every chunk is authenticated. Layout of a stored object:
 * <pre>
 *   "DHTENC01"  8 bytes
 *   key id      8 bytes   (which key: a wrong one is refused before any decryption, by name)
 *   nonce base  8 bytes   (random per object; chunk i's nonce is base || i as 4 bytes)
 *   chunks      64 KiB of ciphertext + 16-byte tag each, the last one shorter (possibly empty)
 * </pre>
 * Each chunk's additional data is the 24-byte header plus a byte saying whether it is the last, so a reordered,
 * truncated or extended object fails to decrypt. The AES key, the naming key and the key id are derived from the
 * key file's bytes with HMAC-SHA256 under distinct labels.
 */
public final class Encryption implements ObjectCodec {
    static final byte[] MAGIC = "DHTENC01".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER = 24;
    static final int CHUNK = 64 << 10;
    static final int TAG = 16;
    /** Shorter key files are refused: a key should be random bytes (openssl rand 32 > key). */
    public static final int MIN_KEY_BYTES = 16;

    private final SecretKeySpec aesKey;
    private final byte[] namingKey;
    private final byte[] keyId;
    private final SecureRandom random = new SecureRandom();

    public Encryption(byte[] secret) {
        if (secret.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("an encryption key needs at least " + MIN_KEY_BYTES + " bytes, got "
                    + secret.length);
        }
        this.aesKey = new SecretKeySpec(derive(secret, "dht backup encryption"), "AES");
        this.namingKey = derive(secret, "dht backup naming");
        this.keyId = Arrays.copyOf(derive(secret, "dht backup key id"), 8);
    }

    /** The key in a file (a mounted Secret), trailing whitespace ignored. */
    public static Encryption fromFile(Path file) throws IOException {
        byte[] raw = Files.readAllBytes(file);
        int n = raw.length;
        while (n > 0 && Character.isWhitespace(raw[n - 1])) {
            n--;
        }
        try {
            return new Encryption(Arrays.copyOf(raw, n));
        } catch (IllegalArgumentException e) {
            throw new IOException("encryption key file " + file + ": " + e.getMessage());
        }
    }

    private static byte[] derive(byte[] secret, String label) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac.doFinal(label.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String keyId() {
        return HexFormat.of().formatHex(keyId);
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
        long chunks = plainLength == 0 ? 1 : (plainLength + CHUNK - 1) / CHUNK;
        return HEADER + chunks * TAG + plainLength;
    }

    @Override
    public InputStream encode(InputStream plain) {
        byte[] header = new byte[HEADER];
        System.arraycopy(MAGIC, 0, header, 0, 8);
        System.arraycopy(keyId, 0, header, 8, 8);
        byte[] base = new byte[8];
        random.nextBytes(base);
        System.arraycopy(base, 0, header, 16, 8);
        return new ChunkStream(new PushbackInputStream(plain, 1), header, true);
    }

    @Override
    public InputStream decode(InputStream stored) throws IOException {
        byte[] header = stored.readNBytes(HEADER);
        if (header.length < HEADER || !Arrays.equals(header, 0, 8, MAGIC, 0, 8)) {
            throw new IOException("not an object encrypted by dht (no DHTENC01 header): was the backup made"
                    + " without encryption?");
        }
        if (!Arrays.equals(header, 8, 16, keyId, 0, 8)) {
            throw new IOException("the object was encrypted with key " + HexFormat.of().formatHex(header, 8, 16)
                    + ", this node's key is " + keyId() + ": wrong encryption key");
        }
        return new ChunkStream(new PushbackInputStream(stored, 1), header, false);
    }

    /** Encrypts or decrypts chunk by chunk as it is read. */
    private final class ChunkStream extends InputStream {
        private final PushbackInputStream in;
        private final byte[] header;
        private final boolean encrypt;
        private byte[] out = new byte[0];
        private int pos;
        private int counter;
        private boolean headerSent;
        private boolean done;

        ChunkStream(PushbackInputStream in, byte[] header, boolean encrypt) {
            this.in = in;
            this.header = header;
            this.encrypt = encrypt;
            this.headerSent = !encrypt; // decryption consumed it already
        }

        private boolean fill() throws IOException {
            if (pos < out.length) {
                return true;
            }
            if (!headerSent) {
                out = header;
                pos = 0;
                headerSent = true;
                return true;
            }
            if (done) {
                return false;
            }
            byte[] chunk = in.readNBytes(encrypt ? CHUNK : CHUNK + TAG);
            boolean last = true;
            if (chunk.length == (encrypt ? CHUNK : CHUNK + TAG)) {
                int next = in.read();
                if (next >= 0) {
                    in.unread(next);
                    last = false;
                }
            }
            out = crypt(chunk, last);
            pos = 0;
            done = last;
            return out.length > 0 || fill();
        }

        private byte[] crypt(byte[] chunk, boolean last) throws IOException {
            byte[] nonce = new byte[12];
            System.arraycopy(header, 16, nonce, 0, 8);
            nonce[8] = (byte) (counter >>> 24);
            nonce[9] = (byte) (counter >>> 16);
            nonce[10] = (byte) (counter >>> 8);
            nonce[11] = (byte) counter;
            counter++;
            try {
                Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
                c.init(encrypt ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE, aesKey, new GCMParameterSpec(128, nonce));
                c.updateAAD(header);
                c.updateAAD(new byte[]{(byte) (last ? 1 : 0)});
                return c.doFinal(chunk);
            } catch (GeneralSecurityException e) {
                throw new IOException("cannot decrypt chunk " + (counter - 1) + " (damaged, truncated or reordered"
                        + " object, or a wrong key): " + e.getMessage(), e);
            }
        }

        @Override
        public int read() throws IOException {
            if (!fill()) {
                return -1;
            }
            return out[pos++] & 0xFF;
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
