package dev.dht.node.backup;

import dev.dht.node.io.AtomicFiles;
import dev.dht.node.io.Throttle;
import dev.dht.node.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Content names of this node's table files, remembered between backups in {@code <data-dir>/backup/names.json}.
 * RocksDB never reuses a file number and never changes an SST or blob file once written, so a name is valid for
 * as long as a file of that number and size exists: a later backup reads only the files that are new since the
 * last one (MANIFEST, OPTIONS and the WAL change, and are always read).
 */
final class ContentNames {
    private final Path file;
    private final BackupStore store;
    private final Map<String, String> known = new HashMap<>();

    /** As saved: the names hold for this encryption key only. */
    private record Saved(String key, Map<String, String> names) {}

    ContentNames(Path file, BackupStore store) {
        this.file = file;
        this.store = store;
        try {
            if (Files.exists(file)) {
                Saved saved = Json.read(Files.readString(file, StandardCharsets.UTF_8), Saved.class);
                if (String.valueOf(store.codec().keyId()).equals(saved.key()) && saved.names() != null) {
                    known.putAll(saved.names());
                }
            }
        } catch (IOException | RuntimeException e) {
            known.clear(); // a cache: computing the names again costs a read of the files
        }
    }

    /** The content name of a checkpoint file of this size (a file not named yet is read at pace's rate). */
    synchronized String of(Path f, long size, Throttle pace) throws IOException {
        String name = f.getFileName().toString();
        boolean immutable = name.endsWith(".sst") || name.endsWith(".blob");
        String key = name + ":" + size;
        if (immutable && known.containsKey(key)) {
            return known.get(key);
        }
        String content = store.contentName(f, pace);
        if (immutable) {
            known.put(key, content);
        }
        return content;
    }

    /** Persists the names, keeping only those of files that still exist in the data directory. */
    synchronized void save() {
        Path data = file.getParent().getParent();
        known.keySet().removeIf(k -> !Files.exists(data.resolve(k.substring(0, k.indexOf(':')))));
        try {
            AtomicFiles.writeString(
                    file, Json.write(new Saved(String.valueOf(store.codec().keyId()), known)));
        } catch (IOException e) {
            // a cache: the next backup computes the names again
        }
    }
}
