package dev.dht.node.backup;

import dev.dht.node.io.Throttle;
import dev.dht.node.objectstore.ObjectCodec;
import dev.dht.node.objectstore.ObjectStore;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongConsumer;

/**
 * The backups' layout in the object store, under the configured prefix:
 * <pre>
 *   files/&lt;content name&gt;                  a checkpoint file, stored once whatever backups share it
 *   backups/&lt;id&gt;/members/&lt;index&gt;.json   a member's part (MemberManifest), written first with complete=false
 *   backups/&lt;id&gt;/manifest.json           written last: the backup is complete (BackupManifest)
 * </pre>
 * Content names are digests of the plain bytes ({@link ObjectCodec#digest}), so an SST file that a later backup
 * still has is not uploaded again, and a downloaded file is checked against its name.
 */
public final class BackupStore {
    public static final String FILES = "files/";
    public static final String BACKUPS = "backups/";

    private final ObjectStore client;
    private final ObjectCodec codec;

    public BackupStore(ObjectStore client, ObjectCodec codec) {
        this.client = client;
        this.codec = codec;
    }

    public ObjectStore client() {
        return client;
    }

    public ObjectCodec codec() {
        return codec;
    }

    /** A backup id names objects and directories: letters, digits, '.', '_' and '-'. */
    public static String checkId(String id) {
        if (id == null || !id.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,127}")) {
            throw new IllegalArgumentException("bad backup id '" + id + "': 1-128 letters, digits, '.', '_', '-'");
        }
        return id;
    }

    public static String manifestPath(String id) {
        return BACKUPS + id + "/manifest.json";
    }

    public static String memberPath(String id, int member) {
        return BACKUPS + id + "/members/" + member + ".json";
    }

    public static String objectPath(String contentName) {
        return FILES + contentName;
    }

    /**
     * The content name of a local file (its digest under the codec), reading the file at most at pace's rate: a
     * backup names every new file before it uploads any, and hashing a member's whole checkpoint at once is a burst
     * of CPU and reads that the live load's tail latency pays for.
     */
    public String contentName(Path file, Throttle pace) throws IOException {
        ObjectCodec.Digest digest = codec.digest();
        byte[] buf = new byte[64 << 10];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                pace.take(n);
                digest.update(buf, 0, n);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return digest.finish();
    }

    /**
     * Stores the file under its content name unless an object holding it is there (of its size in this format or in
     * DHTENC01); true if uploaded. A file larger than a part goes up in parts and resumes where an upload of it by
     * this node stopped ({@link PartUploads}). progress gets the file's bytes as they are read for sending (again on
     * a retry).
     */
    public boolean upload(
            Path file, long size, String contentName, Throttle throttle, LongConsumer progress, PartUploads parts)
            throws IOException {
        String path = objectPath(contentName);
        ObjectCodec codec = this.codec.writing(); // one format for the whole upload (the feature level may change)
        long existing = client.size(path);
        if (existing >= 0 && codec.holds(size, existing)) {
            parts.forget(path); // stored whole, by an upload that finished before this node could say so
            return false;
        }
        long stored = codec.storedLength(size);
        ObjectCodec.PlainSource plain = offset -> new Counted(read(file, offset), progress);
        if (stored <= parts.partSize()) {
            ObjectCodec.Encoder encoder = codec.encoder();
            client.put(path, stored, () -> encoder.open(plain, 0), throttle);
        } else {
            parts.upload(path, stored, codec, plain, throttle);
        }
        return true;
    }

    private static InputStream read(Path file, long offset) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        channel.position(offset);
        return Channels.newInputStream(channel);
    }

    /** A file's bytes, counted as they are read. */
    private static final class Counted extends FilterInputStream {
        private final LongConsumer progress;

        Counted(InputStream in, LongConsumer progress) {
            super(in);
            this.progress = progress;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                progress.accept(n);
            }
            return n;
        }
    }

    /**
     * Downloads an object into target (replaced atomically), decoding it, and checks the bytes against the content
     * name: a damaged or wrongly decrypted file never reaches RocksDB.
     */
    public void download(String object, long size, Path target, Throttle throttle) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".part");
        ObjectCodec.Digest digest = codec.digest();
        long total = 0;
        try (InputStream in = codec.decode(client.open(object));
                OutputStream out = Files.newOutputStream(tmp)) {
            byte[] buf = new byte[256 << 10];
            int n;
            while ((n = in.read(buf)) > 0) {
                throttle.take(n);
                digest.update(buf, 0, n);
                out.write(buf, 0, n);
                total += n;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        String name = object.substring(object.lastIndexOf('/') + 1);
        if (total != size || !digest.finish().equals(name)) {
            Files.deleteIfExists(tmp);
            throw new IOException("object " + object + " does not hold the file it names (" + total + " of " + size
                    + " bytes, or another digest): damaged, or another encryption key");
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public void putMember(MemberManifest m) {
        client.put(memberPath(m.backup(), m.member()), m.toJson());
    }

    /** A member's part, or null if it has not written one. */
    public MemberManifest member(String id, int member) {
        byte[] json = client.get(memberPath(id, member));
        return json == null ? null : MemberManifest.fromJson(json);
    }

    public void putManifest(BackupManifest m) {
        client.put(manifestPath(m.backup()), m.toJson());
    }

    /** The backup's manifest, or null while it is not complete (or does not exist). */
    public BackupManifest manifest(String id) {
        byte[] json = client.get(manifestPath(id));
        return json == null ? null : BackupManifest.fromJson(json);
    }

    /** Ids of every backup with anything stored (complete or not), sorted. */
    public Set<String> backupIds() {
        Set<String> ids = new TreeSet<>();
        for (ObjectStore.ObjectInfo o : client.list(BACKUPS)) {
            String rest = o.path().substring(BACKUPS.length());
            int slash = rest.indexOf('/');
            if (slash > 0) {
                ids.add(rest.substring(0, slash));
            }
        }
        return ids;
    }

    /** Every member manifest stored (complete or not), of every backup. */
    public List<MemberManifest> allMemberManifests() {
        List<MemberManifest> out = new ArrayList<>();
        for (ObjectStore.ObjectInfo o : client.list(BACKUPS)) {
            if (o.path().matches("backups/[^/]+/members/\\d+\\.json")) {
                byte[] json = client.get(o.path());
                if (json != null) {
                    out.add(MemberManifest.fromJson(json));
                }
            }
        }
        return out;
    }

    /** Deletes a backup: its manifest first (it is no longer complete), then its member parts. */
    public void deleteBackup(String id) {
        client.delete(manifestPath(id));
        for (ObjectStore.ObjectInfo o : client.list(BACKUPS + id + "/")) {
            client.delete(o.path());
        }
    }

    /** Outcome of {@link #collectGarbage}. */
    public record Collected(int deleted, long bytesFreed, int kept) {}

    /** Deletes every stored file that no member manifest (complete or not) references. */
    public Collected collectGarbage() {
        Set<String> referenced = new HashSet<>();
        for (MemberManifest m : allMemberManifests()) {
            m.files().forEach(f -> referenced.add(f.object()));
        }
        int deleted = 0;
        int kept = 0;
        long freed = 0;
        for (ObjectStore.ObjectInfo o : client.list(FILES)) {
            if (referenced.contains(o.path())) {
                kept++;
            } else {
                client.delete(o.path());
                deleted++;
                freed += o.size();
            }
        }
        return new Collected(deleted, freed, kept);
    }
}
