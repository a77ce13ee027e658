package dev.dht.node.sorting;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Sorts entries (byte-string key and value) that arrive in any order, in bounded memory: they are packed into one
 * array of a fixed size; a full array is sorted and written to a run file in the sort's directory; at the end the
 * runs and what is still in memory are merged. Out comes every key once, in ascending unsigned order, with the value
 * the {@link Resolver} prefers among the values added for it.
 *
 * <p>Not thread-safe. {@link #close} deletes the directory's run files.
 */
public final class ExternalSorter implements AutoCloseable {
    private static final int MIN_READ_BUFFER = 16 << 10;
    private static final int MAX_READ_BUFFER = 256 << 10;

    private final Path dir;
    private final Slab slab;
    private final Resolver resolver;
    private final List<Path> runs = new ArrayList<>();
    private final List<SortedCursor> open = new ArrayList<>();
    private long added;
    private boolean sorted;

    /**
     * @param dir       where runs go (created if missing; it should be the sort's own)
     * @param slabBytes the memory the sort holds entries in; an entry larger than it is refused
     */
    public ExternalSorter(Path dir, int slabBytes, Resolver resolver) {
        this.dir = dir;
        this.slab = new Slab(slabBytes);
        this.resolver = resolver;
    }

    public void add(byte[] key, byte[] value) throws IOException {
        add(key, 0, key.length, value, 0, value.length);
    }

    public void add(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength)
            throws IOException {
        if (sorted) {
            throw new IllegalStateException("entries added after sorted()");
        }
        if (!slab.fits(keyLength, valueLength)) {
            if (Slab.size(keyLength, valueLength) > slab.capacity()) {
                throw new IllegalArgumentException("an entry of " + Slab.size(keyLength, valueLength)
                        + " bytes does not fit the sort's " + slab.capacity() + " bytes of memory");
            }
            spill();
        }
        slab.add(key, keyOffset, keyLength, value, valueOffset, valueLength);
        added++;
    }

    private void spill() throws IOException {
        Files.createDirectories(dir);
        slab.sort();
        Path run = dir.resolve("run-" + runs.size());
        runs.add(run);
        RunFile.write(run, slab.cursor(resolver));
        slab.clear();
    }

    /** Entries added so far (a key added twice counts twice). */
    public long added() {
        return added;
    }

    /** Runs written to disk so far: 0 while everything fits in memory. */
    public int runs() {
        return runs.size();
    }

    /** Every key once, in order; once. The sorter must stay open while the cursor is used. */
    public SortedCursor sorted() throws IOException {
        if (sorted) {
            throw new IllegalStateException("sorted() twice");
        }
        sorted = true;
        slab.sort();
        List<SortedCursor> sources = new ArrayList<>();
        // the merge reads every run at once: their buffers share about the sort's memory
        int buffer = runs.isEmpty()
                ? 0
                : Math.max(MIN_READ_BUFFER, Math.min(MAX_READ_BUFFER, slab.capacity() / runs.size()));
        try {
            for (Path run : runs) {
                sources.add(RunFile.read(run, buffer));
            }
        } catch (IOException e) {
            sources.forEach(SortedCursor::close);
            throw e;
        }
        sources.add(slab.cursor(resolver));
        open.addAll(sources);
        return SortedCursor.merge(sources, resolver);
    }

    @Override
    public void close() {
        open.forEach(SortedCursor::close);
        open.clear();
        for (Path run : runs) {
            try {
                Files.deleteIfExists(run);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete the sort run " + run, e);
            }
        }
        runs.clear();
    }
}
