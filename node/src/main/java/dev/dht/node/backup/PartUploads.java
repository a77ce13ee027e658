package dev.dht.node.backup;

import dev.dht.node.io.AtomicFiles;
import dev.dht.node.io.Throttle;
import dev.dht.node.json.Json;
import dev.dht.node.objectstore.ObjectCodec;
import dev.dht.node.objectstore.ObjectStore;
import dev.dht.node.objectstore.ObjectStoreException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Uploads of files larger than a part, in parts, resumable: before the first part the upload's id and its encoding
 * (the encryption's salt and nonce prefix, so the same bytes come out again) are saved in
 * {@code <data-dir>/backup/uploads/}; a node killed in the middle asks the store which parts it holds and goes on
 * with the next one. Uploads that nothing will finish are aborted: this node's own once its backup is done, and any
 * in the store older than {@link #STALE} (a member that never came back).
 */
final class PartUploads {
    private static final Logger log = LoggerFactory.getLogger(PartUploads.class);
    /** S3's smallest part (but the last) and its most parts per object. */
    static final long MIN_PART = 5L << 20;

    static final int MAX_PARTS = 10_000;
    /** An upload started this long ago is left by a member that stopped for good (a 5 GiB file takes 21 minutes at 4MiB/s). */
    static final Duration STALE = Duration.ofDays(3);

    private final ObjectStore store;
    private final Path dir;
    private final long partSize;

    /** What is saved before the first part. */
    private record Saved(String path, String uploadId, long length, long partSize, byte[] encoding) {}

    /** A saved upload as written: the encoding's header in hex. */
    private record Stored(String path, String uploadId, long length, long partSize, String encoding) {}

    PartUploads(ObjectStore store, Path dir, long partSize) {
        if (partSize < MIN_PART) {
            throw new IllegalArgumentException("a part holds at least 5 MiB, not " + partSize);
        }
        this.store = store;
        this.dir = dir;
        this.partSize = partSize;
    }

    /** Objects larger than this go up in parts. */
    long partSize() {
        return partSize;
    }

    /** The part size for an object: the configured one, or larger so that it takes at most 10,000 parts. */
    long partSizeFor(long length) {
        long needed = (length + MAX_PARTS - 1) / MAX_PARTS;
        long mib = 1L << 20;
        return Math.max(partSize, (needed + mib - 1) / mib * mib);
    }

    /** Uploads path in parts (the stored bytes of plain under codec), going on with an upload saved before. */
    void upload(String path, long length, ObjectCodec codec, ObjectCodec.PlainSource plain, Throttle throttle)
            throws IOException {
        long part = partSizeFor(length);
        int count = (int) ((length + part - 1) / part);
        List<ObjectStore.Part> done = new ArrayList<>();
        Saved saved = load(path);
        if (saved != null && (saved.length() != length || saved.partSize() != part)) {
            store.abortUpload(path, saved.uploadId()); // another file of that name? cannot be: its name is its digest
            saved = null;
        }
        if (saved != null) {
            try {
                Map<Integer, ObjectStore.Part> held = new LinkedHashMap<>();
                store.parts(path, saved.uploadId()).forEach(p -> held.put(p.number(), p));
                for (int n = 1; n <= count; n++) {
                    ObjectStore.Part p = held.get(n);
                    if (p == null || p.size() != Math.min(part, length - (n - 1) * part)) {
                        break;
                    }
                    done.add(p);
                }
                log.info(
                        "resuming the upload of {} at part {} of {} ({} parts already stored)",
                        path,
                        done.size() + 1,
                        count,
                        done.size());
            } catch (ObjectStoreException e) {
                if (e.status() != 404) {
                    throw e;
                }
                log.info(
                        "the upload of {} begun before is gone from the store ({}): starting it again", path, e.code());
                saved = null;
            }
        }
        if (saved == null) {
            ObjectCodec.Encoder fresh = codec.encoder();
            saved = new Saved(path, store.startUpload(path), length, part, fresh.saved());
            save(saved);
        }
        ObjectCodec.Encoder encoder = codec.encoder(saved.encoding());
        for (int n = done.size() + 1; n <= count; n++) {
            long offset = (n - 1) * part;
            long size = Math.min(part, length - offset);
            String etag = store.putPart(
                    path, saved.uploadId(), n, size, () -> limited(encoder.open(plain, offset), size), throttle);
            done.add(new ObjectStore.Part(n, etag, size));
        }
        store.completeUpload(path, saved.uploadId(), done);
        Files.deleteIfExists(file(path));
    }

    /** Forgets a saved upload of path (its object is stored whole), aborting it in the store. */
    void forget(String path) throws IOException {
        Saved saved = load(path);
        if (saved != null) {
            store.abortUpload(path, saved.uploadId());
            Files.deleteIfExists(file(path));
        }
    }

    /** Aborts every upload this node saved (its backup is over: nothing will finish them). */
    void abortSaved() throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Saved s = read(f);
                if (s != null) {
                    store.abortUpload(s.path(), s.uploadId());
                }
                Files.deleteIfExists(f);
            }
        }
    }

    /** Aborts the store's uploads under pathPrefix started before now - STALE; returns how many. */
    int abortStale(String pathPrefix, Instant now) {
        int aborted = 0;
        for (ObjectStore.Upload u : store.uploads(pathPrefix)) {
            if (u.initiated().isBefore(now.minus(STALE))) {
                store.abortUpload(u.path(), u.uploadId());
                aborted++;
            }
        }
        return aborted;
    }

    private Path file(String path) {
        return dir.resolve(path.replace('/', '_') + ".json");
    }

    private Saved load(String path) {
        Path f = file(path);
        return Files.exists(f) ? read(f) : null;
    }

    private static Saved read(Path f) {
        try {
            Stored m = Json.read(Files.readString(f, StandardCharsets.UTF_8), Stored.class);
            return new Saved(
                    m.path(),
                    m.uploadId(),
                    m.length(),
                    m.partSize(),
                    HexFormat.of().parseHex(m.encoding()));
        } catch (IOException | RuntimeException e) {
            log.warn("cannot read the saved upload {}: {}; the file is uploaded again", f, e.getMessage());
            return null;
        }
    }

    private void save(Saved s) throws IOException {
        Files.createDirectories(dir);
        AtomicFiles.writeString(
                file(s.path()),
                Json.write(new Stored(
                        s.path(),
                        s.uploadId(),
                        s.length(),
                        s.partSize(),
                        HexFormat.of().formatHex(s.encoding()))));
    }

    /** The first n bytes of a stream. */
    private static InputStream limited(InputStream in, long n) {
        return new FilterInputStream(in) {
            private long left = n;

            @Override
            public int read() throws IOException {
                if (left <= 0) {
                    return -1;
                }
                int b = in.read();
                if (b >= 0) {
                    left--;
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (left <= 0) {
                    return -1;
                }
                int r = in.read(b, off, (int) Math.min(len, left));
                if (r > 0) {
                    left -= r;
                }
                return r;
            }
        };
    }
}
