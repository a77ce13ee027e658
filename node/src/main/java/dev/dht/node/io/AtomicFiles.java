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
     * Writes text to file through a sibling {@code <name>.tmp} renamed over it, making the parent directories first.
     * Not synced: for state a restart of the machine may lose (the topology's StateFile syncs its own).
     */
    public static void writeString(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
