package dev.dht.node.io;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Small state files the node rewrites whole (jobs, caches): a reader finds the old content or the new, never half. */
public final class AtomicFiles {
    private AtomicFiles() {}

    /**
     * Writes text to file through a sibling temporary file of its own renamed over it, making the parent directories
     * first. Writers racing on one file each rename a whole file of theirs (the last rename wins): with one shared
     * temporary name, one would truncate the file another was renaming, and the other's rename would fail. Not synced:
     * for state a restart of the machine may lose (the topology's StateFile syncs its own).
     */
    public static void writeString(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = Files.createTempFile(file.getParent(), file.getFileName() + ".", ".tmp");
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp); // only when the write or the rename failed
        }
    }
}
