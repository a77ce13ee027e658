package dev.dht.node.objectstore;

import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * How backed-up bytes are stored: as they are ({@link #PLAIN}), or encrypted on the node before they leave it
 * ({@link Encryption}). Also names content: a file is stored once under the hex digest of its bytes (SHA-256, or an
 * HMAC under the encryption key, so that the name reveals nothing and two keys never share an object).
 */
public interface ObjectCodec {
    /** Identifies the key (stored in manifests and object headers), or null when nothing is encrypted. */
    String keyId();

    /** A fresh digest for naming content. */
    Digest digest();

    /** Bytes stored for a file of this many bytes. */
    long storedLength(long plainLength);

    /** The stored form of plain bytes. */
    InputStream encode(InputStream plain) throws IOException;

    /** The plain bytes of a stored form; the stream fails (IOException) on a wrong key or damaged bytes. */
    InputStream decode(InputStream stored) throws IOException;

    /** An incremental digest. */
    interface Digest {
        void update(byte[] b, int off, int len);

        /** The hex name. */
        String finish();
    }

    ObjectCodec PLAIN = new ObjectCodec() {
        @Override
        public String keyId() {
            return null;
        }

        @Override
        public Digest digest() {
            MessageDigest sha;
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
            return new Digest() {
                @Override
                public void update(byte[] b, int off, int len) {
                    sha.update(b, off, len);
                }

                @Override
                public String finish() {
                    return HexFormat.of().formatHex(sha.digest());
                }
            };
        }

        @Override
        public long storedLength(long plainLength) {
            return plainLength;
        }

        @Override
        public InputStream encode(InputStream plain) {
            return plain;
        }

        @Override
        public InputStream decode(InputStream stored) {
            return stored;
        }
    };
}
