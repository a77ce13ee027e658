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

    /**
     * The codec new objects are written with now: this one, or (an {@link Encryption} in a cluster below the feature
     * level of its format) the older format the release before reads. One upload keeps to the one it took.
     */
    default ObjectCodec writing() {
        return this;
    }

    /** A fresh digest for naming content. */
    Digest digest();

    /** Bytes {@link #encoder} stores for a file of this many bytes. */
    long storedLength(long plainLength);

    /**
     * Whether an object of this many bytes already holds a file of plainLength bytes (in this format or an older one
     * this codec still reads): a backup does not upload it again.
     */
    default boolean holds(long plainLength, long storedLength) {
        return storedLength(plainLength) == storedLength;
    }

    /** An encoding of one object with fresh parameters (a random nonce, say). */
    Encoder encoder();

    /**
     * The encoding whose {@link Encoder#saved()} parameters these are: the same plain bytes give the same stored bytes,
     * so a multipart upload resumed after a restart continues the object it began.
     */
    Encoder encoder(byte[] saved) throws IOException;

    /** The plain bytes of a stored form; the stream fails (IOException) on a wrong key or damaged bytes. */
    InputStream decode(InputStream stored) throws IOException;

    /** A whole stream encoded with fresh parameters (small objects, tests). */
    default InputStream encode(InputStream plain) throws IOException {
        return encoder()
                .open(
                        offset -> {
                            if (offset != 0) {
                                throw new IOException("a stream can only be read from its start");
                            }
                            return plain;
                        },
                        0);
    }

    /** The plain bytes of a file from an offset (a fresh stream each call). */
    @FunctionalInterface
    interface PlainSource {
        InputStream open(long plainOffset) throws IOException;
    }

    /** One object's encoding. */
    interface Encoder {
        /** Its parameters, to be saved with a resumable upload (empty when there are none). */
        byte[] saved();

        /** The stored bytes from storedOffset on, reading only the plain bytes they need. */
        InputStream open(PlainSource plain, long storedOffset) throws IOException;
    }

    /** An incremental digest. */
    interface Digest {
        void update(byte[] b, int off, int len);

        /** The hex name. */
        String finish();
    }

    ObjectCodec PLAIN = new ObjectCodec() {
        private final Encoder identity = new Encoder() {
            @Override
            public byte[] saved() {
                return new byte[0];
            }

            @Override
            public InputStream open(PlainSource plain, long storedOffset) throws IOException {
                return plain.open(storedOffset);
            }
        };

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
        public Encoder encoder() {
            return identity;
        }

        @Override
        public Encoder encoder(byte[] saved) {
            return identity;
        }

        @Override
        public InputStream decode(InputStream stored) {
            return stored;
        }
    };
}
