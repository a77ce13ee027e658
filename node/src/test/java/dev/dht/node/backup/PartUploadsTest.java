package dev.dht.node.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dht.node.io.Throttle;
import dev.dht.node.objectstore.Encryption;
import dev.dht.node.objectstore.ObjectCodec;
import dev.dht.node.objectstore.ObjectStore;
import dev.dht.node.support.ObjectStoreServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Uploads in parts ({@link PartUploads}) against a real S3-compatible server (versitygw): an encrypted upload cut
 * off after some parts goes on from the next part with a new PartUploads on the same directory (as a restarted node
 * does) and the object decrypts to the file; uploads nothing will finish are aborted. The process-level test with a
 * SIGKILLed member is BackupPartsIT.
 */
class PartUploadsTest {
    static final long PART = 5L << 20;
    static final Encryption KEY =
            new Encryption("part uploads test key, 32 bytes!".getBytes(StandardCharsets.US_ASCII));

    @TempDir
    static Path storeDir;

    static ObjectStoreServer server;

    @BeforeAll
    static void start() {
        server = ObjectStoreServer.start(storeDir);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void anUploadCutOffGoesOnFromItsNextPartAndTheObjectDecryptsToTheFile(@TempDir Path dir) throws Exception {
        ObjectStore store = server.client("resume", "p");
        byte[] data = new byte[(int) (3 * PART + 12345)];
        new Random(3).nextBytes(data);
        long stored = KEY.storedLength(data.length);
        List<Long> asked = new ArrayList<>();
        // the "node" dies while it reads part 3's bytes: the first run uploads two parts and fails
        ObjectCodec.PlainSource dying = offset -> {
            asked.add(offset);
            return new InputStream() {
                long at = offset;

                @Override
                public int read() throws IOException {
                    if (at >= 2 * PART + (1 << 20)) {
                        throw new IOException("killed");
                    }
                    return at < data.length ? data[(int) at++] & 0xFF : -1;
                }
            };
        };
        assertThatThrownBy(() ->
                        new PartUploads(store, dir, PART).upload("files/f", stored, KEY, dying, Throttle.unlimited()))
                .hasMessageContaining("killed");
        List<ObjectStore.Upload> open = store.uploads("files/");
        assertThat(open).hasSize(1);
        assertThat(store.parts("files/f", open.get(0).uploadId()))
                .extracting(ObjectStore.Part::number)
                .containsExactly(1, 2);
        assertThat(store.exists("files/f")).isFalse();

        asked.clear();
        ObjectCodec.PlainSource whole = offset -> {
            asked.add(offset);
            return new ByteArrayInputStream(data, (int) offset, data.length - (int) offset);
        };
        new PartUploads(store, dir, PART).upload("files/f", stored, KEY, whole, Throttle.unlimited());

        assertThat(asked)
                .as("plain bytes read again: for parts 3 and 4 only, each from the start of its 1 MiB segment")
                .hasSize(2)
                .allSatisfy(o -> assertThat(o).isGreaterThan(2 * PART - (2 << 20)));
        assertThat(store.uploads("files/")).as("no upload left open").isEmpty();
        assertThat(store.size("files/f")).isEqualTo(stored);
        try (InputStream in = KEY.decode(store.open("files/f"))) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("the saved upload is gone once complete").isEmpty();
        }
    }

    @Test
    void uploadsNothingWillFinishAreAborted(@TempDir Path dir) throws Exception {
        ObjectStore store = server.client("stale", "p");
        ObjectCodec.PlainSource dying = offset -> {
            throw new IOException("killed before its first part");
        };
        assertThatThrownBy(() -> new PartUploads(store, dir, PART)
                        .upload("files/mine", 2 * PART, ObjectCodec.PLAIN, dying, Throttle.unlimited()))
                .hasMessageContaining("killed");
        String old = store.startUpload("files/left-by-a-member-gone");
        String recent = store.startUpload("files/another-members-running");
        // versitygw reports an upload's start as its directory's modification time
        try (Stream<Path> dirs = Files.walk(server.root().resolve("stale"))) {
            for (Path p :
                    dirs.filter(p -> p.getFileName().toString().equals(old)).toList()) {
                Files.setLastModifiedTime(
                        p, FileTime.from(Instant.now().minus(PartUploads.STALE).minusSeconds(60)));
            }
        }
        PartUploads parts = new PartUploads(store, dir, PART);

        assertThat(parts.abortStale("files/", Instant.now())).isEqualTo(1);
        assertThat(store.uploads("files/"))
                .extracting(ObjectStore.Upload::uploadId)
                .doesNotContain(old)
                .contains(recent)
                .hasSize(2);
        parts.abortSaved(); // this node's backup is over: its own upload goes
        assertThat(store.uploads("files/"))
                .extracting(ObjectStore.Upload::uploadId)
                .containsExactly(recent);
    }
}
