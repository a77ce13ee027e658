package dev.dht.node.backup;

import dev.dht.node.objectstore.Credentials;
import dev.dht.node.objectstore.ObjectCodec;
import dev.dht.node.objectstore.S3Client;
import dev.dht.node.objectstore.S3Location;
import dev.dht.node.objectstore.Throttle;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import dev.dht.node.support.ObjectStoreServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The start-up rehearsal of a backup ({@link BackupRehearsal}) against a real S3-compatible server (versitygw): it
 * uploads through the backup's own path and leaves nothing behind, in the store or on disk.
 */
class BackupRehearsalTest {
    private static final long RATE = 64L << 20; // the rehearsal paces by the node's rate: fast here
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
    void uploadsItsFileThroughTheBackupPathAndDeletesIt(@TempDir Path dir) throws Exception {
        S3Client client = server.client("rehearsal", "cluster-a");
        BackupStore backups = new BackupStore(client, ObjectCodec.PLAIN);
        Path backupDir = dir.resolve("backup");
        Files.createDirectories(backupDir.resolve(BackupRehearsal.DIR));
        Files.writeString(backupDir.resolve(BackupRehearsal.DIR).resolve("left-by-a-killed-node"), "x");

        BackupRehearsal.Outcome o = new BackupRehearsal(backups,
                new ContentNames(backupDir.resolve("names.json"), backups), new Throttle(RATE), backupDir).run();

        assertThat(o.error()).isNull();
        assertThat(o.reachable()).isTrue();
        // the file and the job were read for sending and the store answered 200 to their PUTs (put throws otherwise)
        assertThat(o.bytesUploaded()).isGreaterThan(BackupRehearsal.FILE_BYTES);
        assertThat(client.list("")).as("nothing left in the store").isEmpty();
        assertThat(server.root().resolve("rehearsal/cluster-a/" + BackupStore.REHEARSALS)).satisfiesAnyOf(
                p -> assertThat(p).doesNotExist(), p -> assertThat(p).isEmptyDirectory());
        assertThat(backupDir.resolve(BackupRehearsal.DIR)).as("its stage removed, a leftover included")
                .doesNotExist();
    }

    @Test
    void deletesWhatAStoppedMemberLeftButNotAFreshOne(@TempDir Path dir) throws Exception {
        S3Client client = server.client("leftovers", "p");
        BackupStore backups = new BackupStore(client, ObjectCodec.PLAIN);
        client.put(BackupStore.REHEARSALS + "old", new byte[] {1});
        client.put(BackupStore.REHEARSALS + "running", new byte[] {2}); // another member's, rehearsing now
        // versitygw stores an object as a plain file and reports its modification time
        Files.setLastModifiedTime(server.root().resolve("leftovers/p/" + BackupStore.REHEARSALS + "old"),
                FileTime.from(Instant.now().minus(BackupRehearsal.LEFTOVER_AGE).minusSeconds(60)));
        assertThat(client.list(BackupStore.REHEARSALS)).hasSize(2);

        BackupRehearsal.Outcome o = new BackupRehearsal(backups,
                new ContentNames(dir.resolve("names.json"), backups), new Throttle(RATE), dir).run();

        assertThat(o.error()).isNull();
        assertThat(client.list("")).extracting(S3Client.ObjectInfo::path)
                .containsExactly(BackupStore.REHEARSALS + "running");
    }

    @Test
    void anUnreachableStoreIsReportedNotThrown(@TempDir Path dir) throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        S3Client client = new S3Client(new S3Location(URI.create("http://127.0.0.1:" + closed), "nowhere", "p",
                "us-east-1", true), () -> new Credentials("a", "b"), Duration.ofSeconds(2));
        BackupStore backups = new BackupStore(client, ObjectCodec.PLAIN);
        Path backupDir = dir.resolve("backup");

        BackupRehearsal.Outcome o = new BackupRehearsal(backups,
                new ContentNames(backupDir.resolve("names.json"), backups), new Throttle(RATE), backupDir).run();

        assertThat(o.reachable()).isFalse();
        assertThat(o.bytesUploaded()).isZero();
        assertThat(backupDir.resolve(BackupRehearsal.DIR)).doesNotExist();
    }

    @Test
    void aNodeRehearsesOnItsBackupThreadAtStart(@TempDir Path dir) {
        S3Client client = server.client("agent", "p");
        try (RocksStore store = RocksStore.open(dir.resolve("data"), StorageOptions.node(4 << 20, 8 << 20));
             BackupAgent agent = new BackupAgent(store, new BackupStore(client, ObjectCodec.PLAIN), () -> null,
                     "http://127.0.0.1:1", new Throttle(RATE), System::currentTimeMillis)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> agent.rehearsal() != null);
            assertThat(agent.rehearsal().error()).isNull();
            assertThat(agent.rehearsal().bytesUploaded()).isGreaterThan(BackupRehearsal.FILE_BYTES);
            assertThat(client.list("")).isEmpty();
            assertThat(agent.status()).containsEntry("phase", "idle");
        }
    }
}
