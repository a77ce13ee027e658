package dev.dht.node.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.io.Throttle;
import dev.dht.node.support.ObjectStoreServer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The object store client (AWS SDK) against a real S3-compatible server (versitygw), not a stand-in. */
class ObjectStoreTest {
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
        ObjectStore c = server.client("crud", "some/prefix");
        assertThat(c.size("a/b.txt")).isEqualTo(-1);
        assertThat(c.get("a/b.txt")).isNull();
        c.put("a/b.txt", "hello".getBytes(StandardCharsets.UTF_8));
        c.put("a/c d+e.txt", new byte[0]);
        assertThat(new String(c.get("a/b.txt"), StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(c.size("a/b.txt")).isEqualTo(5);
        assertThat(c.size("a/c d+e.txt")).isZero();
        assertThat(c.list("a/")).extracting(ObjectStore.ObjectInfo::path).containsExactly("a/b.txt", "a/c d+e.txt");
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
        ObjectStore missing = new S3ObjectStore(
                server.location("no-such-bucket", "p"), StoreCredentials.of(server.rootCredentials()));
        assertThatThrownBy(missing::probe)
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("NoSuchBucket");
    }

    @Test
    void streamsLargeObjectsThroughTheThrottle() throws Exception {
        ObjectStore c = server.client("stream", "");
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
        ObjectStore c = server.client("empty", "");
        Path file = Files.write(dir.resolve("empty.bin"), new byte[0]);
        c.put("empty.bin", 0, () -> Files.newInputStream(file), new Throttle(8L << 20));
        try (InputStream in = c.open("empty.bin")) {
            assertThat(in.readAllBytes()).isEmpty();
        }
    }

    @Test
    void listsEveryPage() {
        ObjectStore c = server.client("pages", "p");
        for (int i = 0; i < 1005; i++) {
            c.put(String.format("k/%04d", i), new byte[] {(byte) i});
        }
        List<ObjectStore.ObjectInfo> all = c.list("k/");
        assertThat(all).hasSize(1005);
        assertThat(all.get(1004).path()).isEqualTo("k/1004");
    }

    @Test
    void wrongCredentialsFailAtOnceWithTheStoresCode() {
        server.client("denied", "");
        ObjectStore bad = new S3ObjectStore(
                server.location("denied", ""),
                StoreCredentials.of(ObjectStoreServer.writeCredentials(
                        dir.resolve("wrong"), ObjectStoreServer.ACCESS_KEY, "wrong-secret")));
        assertThatThrownBy(() -> bad.put("x", new byte[] {1}))
                .isInstanceOf(ObjectStoreException.class)
                .satisfies(e -> assertThat(((ObjectStoreException) e).status()).isEqualTo(403))
                .hasMessageContaining("SignatureDoesNotMatch");
    }

    @Test
    void anUnreachableStoreFailsAfterRetries() {
        ObjectStore c = new S3ObjectStore(
                new S3Location(java.net.URI.create("http://127.0.0.1:1"), "nothing", "", null, true),
                StoreCredentials.of(ObjectStoreServer.writeCredentials(dir.resolve("ab"), "a", "b")));
        assertThatThrownBy(() -> c.get("x"))
                .isInstanceOf(ObjectStoreException.class)
                .satisfies(e -> assertThat(((ObjectStoreException) e).status()).isZero());
    }

    @Test
    void credentialsAreReadAgainWhenTheFilesChange() throws Exception {
        server.client("rotation", "");
        Path creds =
                ObjectStoreServer.writeCredentials(dir.resolve("creds"), ObjectStoreServer.ACCESS_KEY, "wrong-secret");
        ObjectStore c = new S3ObjectStore(server.location("rotation", "rotated"), StoreCredentials.of(creds));
        assertThatThrownBy(() -> c.put("x", new byte[] {1})).isInstanceOf(ObjectStoreException.class);
        ObjectStoreServer.writeCredentials(creds, ObjectStoreServer.ACCESS_KEY, ObjectStoreServer.SECRET_KEY);
        Files.setLastModifiedTime(
                creds.resolve(CredentialsFile.SECRET_ACCESS_KEY),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));
        c.put("x", new byte[] {1});
        assertThat(c.get("x")).containsExactly(1);
    }

    @Test
    void uploadsInPartsListsTheirPartsAndAborts() throws Exception {
        ObjectStore c = server.client("parts", "p");
        byte[] data = new byte[11 << 20];
        new Random(7).nextBytes(data);
        long part = 5L << 20;
        String id = c.startUpload("big");
        assertThat(c.uploads("")).extracting(ObjectStore.Upload::uploadId).containsExactly(id);
        String e1 = c.putPart("big", id, 1, part, () -> new ByteArrayInputStream(data, 0, (int) part), null);
        assertThat(c.parts("big", id)).containsExactly(new ObjectStore.Part(1, e1, part));
        assertThat(c.exists("big")).as("an upload in progress is no object").isFalse();
        String e2 = c.putPart("big", id, 2, part, () -> new ByteArrayInputStream(data, (int) part, (int) part), null);
        String e3 = c.putPart(
                "big",
                id,
                3,
                data.length - 2 * part,
                () -> new ByteArrayInputStream(data, (int) (2 * part), (int) (data.length - 2 * part)),
                null);
        c.completeUpload(
                "big",
                id,
                List.of(
                        new ObjectStore.Part(1, e1, part),
                        new ObjectStore.Part(2, e2, part),
                        new ObjectStore.Part(3, e3, data.length - 2 * part)));
        try (InputStream in = c.open("big")) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
        assertThat(c.uploads("")).isEmpty();

        String aborted = c.startUpload("gone");
        c.putPart("gone", aborted, 1, part, () -> new ByteArrayInputStream(data, 0, (int) part), null);
        c.abortUpload("gone", aborted);
        c.abortUpload("gone", aborted); // twice: no error
        assertThat(c.uploads("")).isEmpty();
        assertThatThrownBy(() -> c.parts("gone", aborted))
                .isInstanceOf(ObjectStoreException.class)
                .satisfies(e -> assertThat(((ObjectStoreException) e).status()).isEqualTo(404));
        assertThat(c.exists("gone")).isFalse();
    }

    @Test
    void encryptedObjectsRoundTripAndAWrongKeyIsRefused() throws Exception {
        Encryption key = new Encryption("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
        Encryption other = new Encryption("another key, another key, 32 b!".getBytes(StandardCharsets.US_ASCII));
        for (int size : new int[] {
            0,
            1,
            Encryption.FIRST_PLAIN - 1,
            Encryption.FIRST_PLAIN,
            Encryption.FIRST_PLAIN + 1,
            Encryption.FIRST_PLAIN + 2 * Encryption.PLAIN
        }) {
            byte[] data = new byte[size];
            new Random(size).nextBytes(data);
            byte[] stored = key.encode(new ByteArrayInputStream(data)).readAllBytes();
            assertThat((long) stored.length).isEqualTo(key.storedLength(size));
            assertThat(key.decode(new ByteArrayInputStream(stored)).readAllBytes())
                    .isEqualTo(data);
            assertThatThrownBy(
                            () -> other.decode(new ByteArrayInputStream(stored)).readAllBytes())
                    .hasMessageContaining("wrong encryption key");
            if (size > 0) {
                byte[] truncated = java.util.Arrays.copyOf(stored, stored.length - 1);
                assertThatThrownBy(() ->
                                key.decode(new ByteArrayInputStream(truncated)).readAllBytes())
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
        for (int i = 0; text.length() < 3 * Encryption.SEGMENT; i++) {
            text.append("line ").append(i).append(" of a backed-up file, readable if stored in the clear\n");
        }
        byte[] plain = text.toString().getBytes(StandardCharsets.US_ASCII);
        ObjectStore c = server.client("enc", "p");
        c.put("f", key.encode(new ByteArrayInputStream(plain)).readAllBytes());
        byte[] stored = Files.readAllBytes(server.root().resolve("enc/p/f")); // the store's own file
        assertThat(new String(stored, 0, 8, StandardCharsets.US_ASCII)).isEqualTo("DHTENC02");
        for (int at : new int[] {0, 1000, Encryption.SEGMENT - 16, Encryption.SEGMENT + 100, plain.length - 40}) {
            byte[] needle = java.util.Arrays.copyOfRange(plain, at, at + 32);
            assertThat(indexOf(stored, needle))
                    .as("plaintext at %d found in the stored object", at)
                    .isEqualTo(-1);
        }
        assertThat(key.decode(new ByteArrayInputStream(c.get("f"))).readAllBytes())
                .isEqualTo(plain);
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
