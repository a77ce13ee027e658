package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.backup.BackupStore;
import dev.dht.node.backup.MemberManifest;
import dev.dht.node.io.Throttle;
import dev.dht.node.objectstore.Encryption;
import dev.dht.node.objectstore.ObjectStore;
import dev.dht.node.support.ObjectStoreServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file larger than a part is uploaded in parts and resumed after its member is SIGKILLed in the middle: a
 * one-member node holding 24 MiB in its WAL backs up (encrypted, 5 MiB parts, 2 MiB/s); once the store holds two
 * parts of the WAL's upload the member is killed and started again on its data; it goes on from the next part (its
 * log says so, and it sends less than the file again), leaves no upload open, and the stored object decrypts to the
 * file its name is the digest of (the check a restore makes). About 30 s.
 */
class BackupPartsIT {
    static final String BUCKET = "parts";
    static final String PREFIX = "it";
    static final int VALUE = 256 << 10;
    static final int KEYS = 96;

    @TempDir
    static Path dir;

    static ObjectStoreServer store;
    static ObjectStore s3;

    @BeforeAll
    static void start() {
        store = ObjectStoreServer.start(dir.resolve("s3"));
        s3 = store.client(BUCKET, PREFIX);
    }

    @AfterAll
    static void stop() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void aFileLargerThanAPartIsUploadedInPartsAndResumedAfterAKill() throws Exception {
        Path credentials = ObjectStoreServer.writeCredentials(
                dir.resolve("credentials"), ObjectStoreServer.ACCESS_KEY, ObjectStoreServer.SECRET_KEY);
        Path key = Files.writeString(dir.resolve("key"), "backup parts it key, 32 bytes or more\n");
        List<String> args = List.of(
                "--backup-endpoint",
                store.endpoint().toString(),
                "--backup-bucket",
                BUCKET,
                "--backup-prefix",
                PREFIX,
                "--backup-credentials",
                credentials.toString(),
                "--backup-encryption-key",
                key.toString(),
                "--backup-rate",
                "2MiB",
                "--backup-part-size",
                "5MiB");
        try (ProcessCluster cluster = ProcessCluster.start(dir.resolve("cluster"), 1, i -> args)) {
            Random random = new Random(5);
            for (int i = 0; i < KEYS; i++) {
                byte[] value = new byte[VALUE];
                random.nextBytes(value);
                assertThat(cluster.node(0).put("big" + i, value).status()).isEqualTo(201);
            }
            assertThat(BackupAdmin.post(
                                    cluster.process(0),
                                    "/v0/admin/backup",
                                    Map.of("id", "parts", "t0", System.currentTimeMillis(), "member", 0L))
                            .status())
                    .isEqualTo(202);

            // the WAL's upload (the one file over a part) holds two parts: kill the member
            ObjectStore.Upload[] upload = new ObjectStore.Upload[1];
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        List<ObjectStore.Upload> open = s3.uploads(BackupStore.FILES);
                        upload[0] = open.isEmpty() ? null : open.get(0);
                        return upload[0] != null
                                && s3.parts(upload[0].path(), upload[0].uploadId())
                                                .size()
                                        >= 2;
                    });
            cluster.kill(0);
            cluster.start(0);
            BackupAdmin.Answer done =
                    BackupAdmin.awaitPhase(cluster.process(0), "/v0/admin/backup", "done", Duration.ofMinutes(2));

            Matcher resumed = Pattern.compile(
                            "resuming the upload of " + Pattern.quote(upload[0].path()) + " at part (\\d+) of (\\d+)")
                    .matcher(cluster.logs().text(0));
            assertThat(resumed.find())
                    .as("the restarted member resumed the upload")
                    .isTrue();
            assertThat(Integer.parseInt(resumed.group(1))).isGreaterThanOrEqualTo(3);
            assertThat(Integer.parseInt(resumed.group(2))).isGreaterThanOrEqualTo(5);
            MemberManifest manifest = MemberManifest.fromJson(s3.get(BackupStore.memberPath("parts", 0)));
            MemberManifest.FileRef wal = manifest.files().stream()
                    .filter(f -> f.object().equals(upload[0].path()))
                    .findFirst()
                    .orElseThrow();
            assertThat(wal.size()).isGreaterThan((long) KEYS * VALUE);
            assertThat(BackupAdmin.nested(done, "bytes", "uploaded"))
                    .as("sent again after the restart")
                    .isLessThan(wal.size() - (5L << 20));
            assertThat(s3.uploads("")).as("no upload left open").isEmpty();
            assertThat(Files.exists(dir.resolve("cluster/node0/backup/uploads"))
                            && Files.list(dir.resolve("cluster/node0/backup/uploads"))
                                    .findAny()
                                    .isPresent())
                    .as("no saved upload left")
                    .isFalse();
            // downloaded, decrypted and checked against its content name, as a restore does (throws otherwise)
            new BackupStore(s3, Encryption.fromFile(key))
                    .download(wal.object(), wal.size(), dir.resolve("wal"), Throttle.unlimited());
            assertThat(Files.size(dir.resolve("wal"))).isEqualTo(wal.size());
        }
    }
}
