package dev.dht.node.config;

import dev.dht.node.threads.DaemonThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls files' content (not their mtime: a mounted Secret or ConfigMap changes by swapping a symlink, and reading
 * through the path follows it) and offers the new contents to the caller when any of them changed. A file that
 * cannot be read (mid-swap, deleted) is looked at again next time; the caller decides what to do with contents it
 * cannot use, and may refuse them for now (see {@link Offer}) to be offered them again at the next poll.
 */
public final class FilePoller implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FilePoller.class);

    /** What the caller does with changed contents. */
    @FunctionalInterface
    public interface Offer {
        /**
         * @return true once the contents are settled (used, or rejected for what they hold: offered again only when
         *     they change); false if they are refused for a reason that may pass (the next poll offers the files'
         *     contents again, changed or not)
         */
        boolean take(List<byte[]> contents);
    }

    private final List<Path> files;
    private final Offer offer;
    private final ScheduledExecutorService timer;
    private List<byte[]> last;

    /**
     * @param initial  the contents the caller already uses (the first poll compares against them); null offers
     *     the first poll's contents whatever they are
     * @param onChange runs on the poller's thread with every file's new content, in the order of {@code files}
     */
    public FilePoller(
            String name, List<Path> files, List<byte[]> initial, Duration interval, Consumer<List<byte[]>> onChange) {
        this(name, files, initial, interval, (Offer) contents -> {
            onChange.accept(contents);
            return true;
        });
    }

    /** As the constructor, for a caller that may refuse contents for now and take them at a later poll. */
    public static FilePoller offering(
            String name, List<Path> files, List<byte[]> initial, Duration interval, Offer offer) {
        return new FilePoller(name, files, initial, interval, offer);
    }

    private FilePoller(String name, List<Path> files, List<byte[]> initial, Duration interval, Offer offer) {
        this.files = List.copyOf(files);
        this.offer = offer;
        this.last = initial;
        this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory(name, false));
        DaemonThreads.repeat(timer, "polling " + files, interval, this::poll);
    }

    /** Every file's content, in order. */
    public static List<byte[]> read(List<Path> files) throws IOException {
        List<byte[]> contents = new ArrayList<>(files.size());
        for (Path f : files) {
            contents.add(Files.readAllBytes(f));
        }
        return contents;
    }

    /** One poll (package-visible for tests that do not want to wait for the timer). */
    synchronized void poll() {
        List<byte[]> now;
        try {
            now = read(files);
        } catch (IOException e) {
            return;
        }
        if (same(now, last)) {
            return;
        }
        last = now;
        try {
            if (!offer.take(now)) {
                last = null; // refused for now: whatever the files hold at the next poll is offered again
            }
        } catch (RuntimeException e) {
            log.warn("reloading {} failed: {}", files, e.toString());
        }
    }

    private static boolean same(List<byte[]> a, List<byte[]> b) {
        if (a == null || b == null || a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
