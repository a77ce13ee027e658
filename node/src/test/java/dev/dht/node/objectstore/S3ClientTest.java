package dev.dht.node.objectstore;

import dev.dht.node.support.ObjectStoreServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The S3 client against a real S3-compatible server (versitygw), not a stand-in. */
class S3ClientTest {
    @TempDir
    static Path dir;
    static ObjectStoreServer server;

    @BeforeAll
    static void start() {
        server = ObjectStoreServer.start(dir);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void putGetHeadListDelete() {
        S3Client c = server.client("crud", "some/prefix");
        assertThat(c.size("a/b.txt")).isEqualTo(-1);
        assertThat(c.get("a/b.txt")).isNull();
        c.put("a/b.txt", "hello".getBytes(StandardCharsets.UTF_8));
        c.put("a/c d+e.txt", new byte[0]);
        assertThat(new String(c.get("a/b.txt"), StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(c.size("a/b.txt")).isEqualTo(5);
        assertThat(c.size("a/c d+e.txt")).isZero();
        assertThat(c.list("a/")).extracting(S3Client.ObjectInfo::path).containsExactly("a/b.txt", "a/c d+e.txt");
        // stored as a plain file under the prefix, as versitygw does
        assertThat(server.root().resolve("crud/some/prefix/a/b.txt")).hasContent("hello");
        c.delete("a/b.txt");
        c.delete("a/never-there");
        assertThat(c.exists("a/b.txt")).isFalse();
        assertThat(c.list("a/")).hasSize(1);
    }

    @Test
    void aProbeSaysWhetherTheBucketIsThereAndTheCredentialsTaken() {
        server.client("probed", "p").probe(); // the bucket exists (client() makes it): no exception
        S3Client missing = new S3Client(server.location("no-such-bucket", "p"),
                () -> new Credentials(ObjectStoreServer.ACCESS_KEY, ObjectStoreServer.SECRET_KEY), Duration.ofSeconds(10));
        assertThatThrownBy(missing::probe).isInstanceOf(ObjectStoreException.class).hasMessageContaining("NoSuchBucket");
    }

    @Test
    void streamsLargeObjectsThroughTheThrottle() throws Exception {
        S3Client c = server.client("stream", "");
        byte[] data = new byte[3 << 20];
        new Random(1).nextBytes(data);
        Path file = Files.write(dir.resolve("big.bin"), data);
        Throttle throttle = new Throttle(8L << 20);
        long start = System.nanoTime();
        c.put("big.bin", data.length, () -> Files.newInputStream(file), throttle);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertThat(ms).as("3 MiB at 8 MiB/s takes at least ~250 ms").isGreaterThanOrEqualTo(250);
        try (InputStream in = c.open("big.bin")) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
    }

    @Test
    void streamsAnEmptyFile() throws Exception {
        // a checkpoint can hold an empty file (e2e step 9 after a rebuild): the JDK refuses a streamed length of 0
        S3Client c = server.client("empty", "");
        Path file = Files.write(dir.resolve("empty.bin"), new byte[0]);
        c.put("empty.bin", 0, () -> Files.newInputStream(file), new Throttle(8L << 20));
        try (InputStream in = c.open("empty.bin")) {
            assertThat(in.readAllBytes()).isEmpty();
        }
    }

    @Test
    void listsEveryPage() {
        S3Client c = server.client("pages", "p");
        for (int i = 0; i < 1005; i++) {
            c.put(String.format("k/%04d", i), new byte[]{(byte) i});
        }
        List<S3Client.ObjectInfo> all = c.list("k/");
        assertThat(all).hasSize(1005);
        assertThat(all.get(1004).path()).isEqualTo("k/1004");
    }

    @Test
    void wrongCredentialsFailAtOnceWithTheStoresCode() {
        server.client("denied", "");
        S3Client bad = new S3Client(server.location("denied", ""), () -> new Credentials(ObjectStoreServer.ACCESS_KEY, "wrong-secret"),
                Duration.ofSeconds(10));
        assertThatThrownBy(() -> bad.put("x", new byte[]{1}))
                .isInstanceOf(ObjectStoreException.class)
                .satisfies(e -> assertThat(((ObjectStoreException) e).status()).isEqualTo(403))
                .hasMessageContaining("SignatureDoesNotMatch");
    }

    @Test
    void anUnreachableStoreFailsAfterRetries() {
        S3Client c = new S3Client(new S3Location(java.net.URI.create("http://127.0.0.1:1"), "nothing", "", null,
                true), () -> new Credentials("a", "b"), Duration.ofSeconds(2));
        assertThatThrownBy(() -> c.get("x")).isInstanceOf(ObjectStoreException.class)
                .satisfies(e -> assertThat(((ObjectStoreException) e).status()).isZero());
    }

    @Test
    void credentialsAreReadAgainWhenTheFilesChange() throws Exception {
        server.client("rotation", "");
        Path creds = ObjectStoreServer.writeCredentials(dir.resolve("creds"), ObjectStoreServer.ACCESS_KEY, "wrong-secret");
        CredentialsFile file = new CredentialsFile(creds);
        S3Client c = new S3Client(server.location("rotation", "rotated"), file, Duration.ofSeconds(10));
        assertThatThrownBy(() -> c.put("x", new byte[]{1})).isInstanceOf(ObjectStoreException.class);
        ObjectStoreServer.writeCredentials(creds, ObjectStoreServer.ACCESS_KEY, ObjectStoreServer.SECRET_KEY);
        Files.setLastModifiedTime(creds.resolve(CredentialsFile.SECRET_ACCESS_KEY),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));
        c.put("x", new byte[]{1});
        assertThat(c.get("x")).containsExactly(1);
    }

    @Test
    void encryptedObjectsRoundTripAndAWrongKeyIsRefused() throws Exception {
        Encryption key = new Encryption("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
        Encryption other = new Encryption("another key, another key, 32 b!".getBytes(StandardCharsets.US_ASCII));
        for (int size : new int[]{0, 1, Encryption.CHUNK - 1, Encryption.CHUNK, Encryption.CHUNK + 1,
                3 * Encryption.CHUNK}) {
            byte[] data = new byte[size];
            new Random(size).nextBytes(data);
            byte[] stored = key.encode(new ByteArrayInputStream(data)).readAllBytes();
            assertThat((long) stored.length).isEqualTo(key.storedLength(size));
            assertThat(key.decode(new ByteArrayInputStream(stored)).readAllBytes()).isEqualTo(data);
            assertThatThrownBy(() -> other.decode(new ByteArrayInputStream(stored)).readAllBytes())
                    .hasMessageContaining("wrong encryption key");
            if (size > 0) {
                byte[] truncated = java.util.Arrays.copyOf(stored, stored.length - 1);
                assertThatThrownBy(() -> key.decode(new ByteArrayInputStream(truncated)).readAllBytes())
                        .hasMessageContaining("cannot decrypt");
            }
        }
        assertThat(key.keyId()).isNotEqualTo(other.keyId()).hasSize(16);
        assertThatThrownBy(() -> new Encryption(new byte[15])).hasMessageContaining("at least 16 bytes");
    }

    @Test
    void anEncryptedObjectHoldsNoPlaintextInTheStore() throws Exception {
        Encryption key = new Encryption("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 3 * Encryption.CHUNK; i++) {
            text.append("line ").append(i).append(" of a backed-up file, readable if stored in the clear\n");
        }
        byte[] plain = text.toString().getBytes(StandardCharsets.US_ASCII);
        S3Client c = server.client("enc", "p");
        c.put("f", key.encode(new ByteArrayInputStream(plain)).readAllBytes());
        byte[] stored = Files.readAllBytes(server.root().resolve("enc/p/f")); // the store's own file
        assertThat(new String(stored, 0, 8, StandardCharsets.US_ASCII)).isEqualTo("DHTENC01");
        for (int at : new int[]{0, 1000, Encryption.CHUNK - 16, Encryption.CHUNK + 100, plain.length - 40}) {
            byte[] needle = java.util.Arrays.copyOfRange(plain, at, at + 32);
            assertThat(indexOf(stored, needle)).as("plaintext at %d found in the stored object", at).isEqualTo(-1);
        }
        assertThat(key.decode(new ByteArrayInputStream(c.get("f"))).readAllBytes()).isEqualTo(plain);
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
