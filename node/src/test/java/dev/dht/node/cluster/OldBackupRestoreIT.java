package dev.dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.node.objectstore.ObjectStore;
import dev.dht.node.support.ObjectStoreServer;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A backup taken by the previous release (f09ee83: the hand-written S3 client, encryption format DHTENC01) restores
 * with today's code. The fixture (src/test/resources/backup-f09ee83, made by make-fixture.sh there with that
 * release's jar) is what that release stored for a 2-member cluster at factor 2 holding 60 keys, key0-19 overwritten
 * and key40-49 deleted, half in table files and half in the WAL, once encrypted and once plain. Its objects are put
 * into versitygw as they were and restored into a new one-member cluster; every key reads its last value, and every
 * deleted key 404. About 15 s (two node starts).
 */
class OldBackupRestoreIT {
    static final String BUCKET = "fixture";

    @TempDir
    static Path dir;

    static ObjectStoreServer store;
    static Path fixture;

    @BeforeAll
    static void start() throws IOException, URISyntaxException {
        fixture = Path.of(OldBackupRestoreIT.class
                        .getResource("/backup-f09ee83/encryption-key")
                        .toURI())
                .getParent();
        store = ObjectStoreServer.start(dir.resolve("s3"));
        ObjectStore s3 = store.client(BUCKET, "");
        try (Stream<Path> files = Files.walk(fixture)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String path = fixture.relativize(f).toString();
                if (path.startsWith("encrypted/") || path.startsWith("plain/")) {
                    s3.put(path, Files.readAllBytes(f));
                }
            }
        }
    }

    @AfterAll
    static void stop() {
        if (store != null) {
            store.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"encrypted", "plain"})
    void restoresABackupOfThePreviousRelease(String prefix) throws Exception {
        Path credentials = ObjectStoreServer.writeCredentials(
                dir.resolve("credentials"), ObjectStoreServer.ACCESS_KEY, ObjectStoreServer.SECRET_KEY);
        List<String> args = new ArrayList<>(List.of(
                "--backup-endpoint",
                store.endpoint().toString(),
                "--backup-bucket",
                BUCKET,
                "--backup-prefix",
                prefix,
                "--backup-credentials",
                credentials.toString(),
                "--restoring",
                "true"));
        if (prefix.equals("encrypted")) {
            args.addAll(List.of(
                    "--backup-encryption-key", fixture.resolve("encryption-key").toString()));
        }
        try (ProcessCluster target = ProcessCluster.start(dir.resolve(prefix), 1, i -> args)) {
            BackupAdmin.Answer started = BackupAdmin.post(
                    target.process(0), "/v0/admin/restore", Map.of("id", "old-release", "share", 0L, "shares", 1L));
            assertThat(started.status()).as("%s", started).isEqualTo(202);
            BackupAdmin.Answer streamed =
                    BackupAdmin.awaitPhase(target.process(0), "/v0/admin/restore", "streamed", Duration.ofMinutes(2));
            assertThat(BackupAdmin.nested(streamed, "records", "sent"))
                    .as("60 keys on each of 2 members")
                    .isEqualTo(120);
            assertThat(BackupAdmin.post(target.process(0), "/v0/admin/restore/finish", Map.of("id", "old-release"))
                            .status())
                    .isEqualTo(200);
            BackupAdmin.awaitPhase(target.process(0), "/v0/admin/restore", "done", Duration.ofMinutes(2));

            EntityClient node = target.node(0);
            for (int i = 0; i < 60; i++) {
                Reply r = node.get("key" + i);
                if (i >= 40 && i < 50) {
                    assertThat(r.status()).as("key%d was deleted", i).isEqualTo(404);
                } else {
                    assertThat(r.status()).as("key%d", i).isEqualTo(200);
                    assertThat(new String(r.body(), StandardCharsets.UTF_8))
                            .as("key%d", i)
                            .isEqualTo("value-" + i + (i < 20 ? "-second" : "-first"));
                }
            }
        }
    }
}
