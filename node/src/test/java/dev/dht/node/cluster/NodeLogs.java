package dev.dht.node.cluster;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;

/**
 * One log file per node, {@code node<i>.log}, with the output of every process the node ran as (restarts and
 * alone runs included), each preceded by a line of the harness saying how it was started. A test failure prints
 * what the nodes logged during that test only.
 */
final class NodeLogs {
    /** Printed at most per node: the end of what a test logged. */
    private static final int MAX_PRINTED = 1 << 20;

    private final Path dir;
    private final List<String> urls;

    NodeLogs(Path dir, List<String> urls) {
        this.dir = dir;
        this.urls = urls;
    }

    Path dir() {
        return dir;
    }

    String name(int node) {
        return "node" + node;
    }

    private Path file(int node) {
        return dir.resolve(name(node) + ".log");
    }

    /** Everything node i logged so far, over all its restarts. */
    String text(int node) {
        try {
            return Files.readString(file(node), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /** Appends a line of the harness (the process is not running yet, so nothing interleaves). */
    void harnessLine(int node, String text) {
        try {
            Files.createDirectories(dir);
            Files.writeString(
                    file(node),
                    "==== " + Instant.now() + " test harness: " + text + "\n",
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The current length of every node's log. */
    long[] lengths() {
        long[] lengths = new long[urls.size()];
        for (int i = 0; i < lengths.length; i++) {
            try {
                lengths[i] = Files.exists(file(i)) ? Files.size(file(i)) : 0;
            } catch (IOException e) {
                lengths[i] = 0;
            }
        }
        return lengths;
    }

    /** What every node logged after the given lengths. */
    String since(long[] lengths) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < urls.size(); i++) {
            out.append("---------- node ")
                    .append(i)
                    .append(" (")
                    .append(urls.get(i))
                    .append(") ----------\n");
            try (RandomAccessFile log = new RandomAccessFile(file(i).toFile(), "r")) {
                long from = Math.max(Math.min(lengths[i], log.length()), log.length() - MAX_PRINTED);
                byte[] text = new byte[(int) (log.length() - from)];
                log.seek(from);
                log.readFully(text);
                out.append(new String(text, StandardCharsets.UTF_8));
            } catch (IOException e) {
                out.append("(no log: ").append(e).append(")\n");
            }
        }
        return out.toString();
    }
}
