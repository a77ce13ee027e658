package dev.dht.node.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Small state files the node rewrites whole (jobs, the topology state, the feature level, the rack): a reader finds
 * the old content or the new, never half.
 */
public final class AtomicFiles {
    private AtomicFiles() {}

    /** {@link #write} of text, not synced: for state a restart of the machine may lose. */
    public static void writeString(Path file, String text) throws IOException {
        write(file, text.getBytes(StandardCharsets.UTF_8), false);
    }

    /**
     * Writes bytes to file through a sibling temporary file of its own renamed over it, making the parent
     * directories first. Writers racing on one file each rename a whole file of theirs (the last rename wins): with
     * one shared temporary name, one would truncate the file another was renaming, and that rename would fail.
     *
     * @param sync whether the bytes reach the disk before the rename (state a restart of the machine must find)
     */
    public static void write(Path file, byte[] bytes, boolean sync) throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = Files.createTempFile(file.getParent(), file.getFileName() + ".", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                if (sync) {
                    ch.force(true);
                }
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp); // only when the write or the rename failed
        }
    }
}
