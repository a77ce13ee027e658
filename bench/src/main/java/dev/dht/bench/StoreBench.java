package dev.dht.bench;

import dev.dht.node.storage.BlindPut;
import dev.dht.node.storage.Record;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StorageOptions;
import dev.dht.node.storage.StoreStats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;

/**
 * Storage benchmark behind `make bench-storage`: the RocksDB option sets of {@link StorageOptions} side by side,
 * through the node's own {@link RocksStore} (so the record codec and the last-write-wins apply are included),
 * without HTTP. Per preset: T threads write unique keys for S seconds, then read random existing keys for S
 * seconds; the node preset also measures what the last-write-wins check costs against a blind put.
 *
 * <p>Usage: java -cp dht-bench.jar:dht-node.jar dev.dht.bench.StoreBench DIR SECONDS THREADS OUT.json [preset,...]
 */
public final class StoreBench {
    private static final int VALUE_SIZE = 100;
    private static final long MEMTABLE = 64L << 20;
    private static final long CACHE = 64L << 20;

    private StoreBench() {}

    static List<StorageOptions> presets() {
        StorageOptions defaults = StorageOptions.rocksDefaults(MEMTABLE, CACHE);
        return List.of(
                defaults,
                defaults.withConcurrentMemtableWrite(false).withName("defaults-no-concurrent-memtable-writes"),
                defaults.withCompaction(CompactionStyle.UNIVERSAL).withName("defaults+universal"),
                defaults.withCompression(CompressionType.LZ4_COMPRESSION).withName("defaults+lz4"),
                defaults.withBloom(10, 0.02).withName("defaults+bloom"),
                defaults.withStatistics(false).withName("defaults-no-statistics"),
                StorageOptions.seeds(MEMTABLE, CACHE),
                defaults.withCompression(CompressionType.NO_COMPRESSION).withName("defaults-no-compression"),
                StorageOptions.node(MEMTABLE, CACHE)
                        .withConcurrentMemtableWrite(true)
                        .withName("node+concurrent-memtable-writes"),
                StorageOptions.node(16L << 20, CACHE).withName("node-16MiB-memtable"),
                StorageOptions.node(MEMTABLE, 256L << 20).withName("node-256MiB-cache"),
                StorageOptions.node(MEMTABLE, CACHE).withReadPath(false, false).withName("node-lru-cache"),
                StorageOptions.node(MEMTABLE, CACHE).withReadPath(true, true).withName("node+block-hash-index"),
                StorageOptions.node(MEMTABLE, 1L << 30)
                        .withReadPath(false, false)
                        .withName("node-1GiB-lru-cache"),
                StorageOptions.node(MEMTABLE, 1L << 30).withName("node-1GiB-cache"),
                StorageOptions.node(MEMTABLE, CACHE).withRowCache(256L << 20).withName("node+256MiB-row-cache"),
                StorageOptions.node(MEMTABLE, 1L << 30)
                        .withRowCache(256L << 20)
                        .withName("node-1GiB-cache+256MiB-row-cache"),
                StorageOptions.node(MEMTABLE, 1L << 30)
                        .withBlockSize(16 << 10)
                        .withName("node-1GiB-cache+16KiB-blocks"),
                StorageOptions.node(MEMTABLE, CACHE).withBlockSize(16 << 10).withName("node+16KiB-blocks"),
                StorageOptions.node(MEMTABLE, CACHE));
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: StoreBench DIR SECONDS THREADS OUT.json [preset,...]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        int seconds = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        Path out = Path.of(args[3]);
        List<String> only = args.length > 4 ? Arrays.asList(args[4].split(",")) : List.of();

        StringBuilder json = new StringBuilder();
        json.append("{\n  \"seconds\": ")
                .append(seconds)
                .append(",\n  \"threads\": ")
                .append(threads)
                .append(",\n  \"value_bytes\": ")
                .append(VALUE_SIZE)
                .append(",\n  \"cpus\": ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(",\n  \"presets\": [\n");
        boolean first = true;
        List<StorageOptions> runs = new ArrayList<>();
        if (only.isEmpty()) {
            runs.addAll(presets());
        } else {
            for (String name : only) { // in the order given; a name may repeat (repeated measurements)
                runs.add(presets().stream()
                        .filter(p -> p.name().equals(name))
                        .findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no preset " + name)));
            }
        }
        for (StorageOptions preset : runs) {
            Path d = dir.resolve(preset.name());
            delete(d);
            String result = run(preset, d, seconds, threads);
            delete(d);
            json.append(first ? "" : ",\n").append(result);
            first = false;
        }
        json.append("\n  ]\n}\n");
        Files.writeString(out, json.toString());
        System.err.println("wrote " + out);
    }

    private static String run(StorageOptions preset, Path dir, int seconds, int threads) throws Exception {
        System.err.printf(Locale.ROOT, "%s: writing for %ds with %d threads%n", preset.name(), seconds, threads);
        try (RocksStore store = RocksStore.open(dir, preset)) {
            long[] written = new long[threads];
            Phase put = timed(threads, seconds, (t, rnd, stop, lat) -> {
                byte[][] values = values(rnd);
                long n = 0;
                while (!stop.get()) {
                    long t0 = System.nanoTime();
                    store.applyIfNewer(key(t, n), Record.value(1, values[(int) (n & 1023)]));
                    lat.record(System.nanoTime() - t0);
                    n++;
                }
                written[t] = n;
                return n;
            });
            StoreStats afterPut = store.stats();
            store.flush();
            long sstBytes = store.stats().liveSstBytes();
            System.err.printf(
                    Locale.ROOT, "%s: %.0f puts/s, p99 %.1f us%n", preset.name(), put.opsPerSec, put.p99Micros);

            Phase get = timed(threads, seconds, (t, rnd, stop, lat) -> {
                long n = 0;
                while (!stop.get()) {
                    int owner = rnd.nextInt(threads);
                    long i = rnd.nextLong(Math.max(1, written[owner]));
                    long t0 = System.nanoTime();
                    Record r = store.get(key(owner, i));
                    lat.record(System.nanoTime() - t0);
                    if (r == null) {
                        throw new IllegalStateException("missing key written before");
                    }
                    n++;
                }
                return n;
            });
            System.err.printf(
                    Locale.ROOT, "%s: %.0f gets/s, p99 %.1f us%n", preset.name(), get.opsPerSec, get.p99Micros);

            StringBuilder sb = new StringBuilder();
            sb.append("    {\"name\": \"")
                    .append(preset.name())
                    .append("\", ")
                    .append("\"compaction\": \"")
                    .append(preset.compaction())
                    .append("\", ")
                    .append("\"compression\": \"")
                    .append(preset.compression())
                    .append("\", ")
                    .append("\"concurrent_memtable_write\": ")
                    .append(preset.concurrentMemtableWrite())
                    .append(", ")
                    .append("\"auto_compactions\": ")
                    .append(preset.autoCompactions())
                    .append(", ")
                    .append("\"bloom_bits_per_key\": ")
                    .append(preset.bloomBitsPerKey())
                    .append(", ")
                    .append("\"statistics\": ")
                    .append(preset.statistics())
                    .append(",\n")
                    .append("     \"put\": ")
                    .append(put.json())
                    .append(",\n")
                    .append("     \"get\": ")
                    .append(get.json())
                    .append(",\n")
                    .append("     \"keys_written\": ")
                    .append(Arrays.stream(written).sum())
                    .append(", \"sst_bytes_after_put\": ")
                    .append(sstBytes)
                    .append(", \"sst_bytes_per_key\": ")
                    .append(String.format(
                            Locale.ROOT,
                            "%.1f",
                            (double) sstBytes
                                    / Math.max(1, Arrays.stream(written).sum())))
                    .append(", \"pending_compaction_bytes_after_put\": ")
                    .append(afterPut.pendingCompactionBytes());
            if (preset.name().equals("node")) {
                sb.append(",\n     \"lww\": ").append(lwwCost(store, seconds, threads));
            }
            sb.append("}");
            return sb.toString();
        }
    }

    /** applyIfNewer vs a blind put on new keys, and applyIfNewer overwriting existing keys (must read first). */
    private static String lwwCost(RocksStore store, int seconds, int threads) throws Exception {
        int slice = Math.max(2, seconds / 2);
        Phase blind = timed(threads, slice, (t, rnd, stop, lat) -> {
            byte[][] values = values(rnd);
            long n = 0;
            while (!stop.get()) {
                long t0 = System.nanoTime();
                BlindPut.put(store, key(t + 1000, n), Record.value(1, values[(int) (n & 1023)]));
                lat.record(System.nanoTime() - t0);
                n++;
            }
            return n;
        });
        Phase apply = timed(threads, slice, (t, rnd, stop, lat) -> {
            byte[][] values = values(rnd);
            long n = 0;
            while (!stop.get()) {
                long t0 = System.nanoTime();
                store.applyIfNewer(key(t + 2000, n), Record.value(1, values[(int) (n & 1023)]));
                lat.record(System.nanoTime() - t0);
                n++;
            }
            return n;
        });
        Phase overwrite = timed(threads, slice, (t, rnd, stop, lat) -> {
            byte[][] values = values(rnd);
            long n = 0;
            long ts = 2;
            while (!stop.get()) {
                long t0 = System.nanoTime();
                store.applyIfNewer(key(t + 2000, n % 100_000), Record.value(ts++, values[(int) (n & 1023)]));
                lat.record(System.nanoTime() - t0);
                n++;
            }
            return n;
        });
        System.err.printf(
                Locale.ROOT,
                "node: blind put %.0f/s, apply (new keys) %.0f/s, apply (overwrite) %.0f/s%n",
                blind.opsPerSec,
                apply.opsPerSec,
                overwrite.opsPerSec);
        return "{\"blind_put\": " + blind.json() + ", \"apply_new_keys\": " + apply.json() + ", \"apply_overwrite\": "
                + overwrite.json() + "}";
    }

    private static byte[] key(int thread, long n) {
        return String.format(Locale.ROOT, "t%d-%010d", thread, n).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * 1024 different values per thread, each half random and half repeated bytes: compresses about 2:1, like
     * typical small JSON-ish values (one value for every key would compress to nothing and flatter compression).
     */
    private static byte[][] values(SplittableRandom rnd) {
        byte[][] values = new byte[1024][];
        for (int n = 0; n < values.length; n++) {
            byte[] v = new byte[VALUE_SIZE];
            for (int i = 0; i < VALUE_SIZE / 2; i++) {
                v[i] = (byte) rnd.nextInt(256);
            }
            Arrays.fill(v, VALUE_SIZE / 2, VALUE_SIZE, (byte) 'x');
            values[n] = v;
        }
        return values;
    }

    private interface Work {
        long run(int thread, SplittableRandom rnd, AtomicBoolean stop, Latencies latencies) throws Exception;
    }

    /** Log-linear latency buckets (1/16 of each power of two): enough to read a p99 without keeping samples. */
    static final class Latencies {
        final long[] counts = new long[64 * 16];

        void record(long nanos) {
            long v = Math.max(1, nanos);
            int exp = 63 - Long.numberOfLeadingZeros(v);
            int sub = exp < 4 ? 0 : (int) ((v >>> (exp - 4)) & 15);
            counts[exp * 16 + sub]++;
        }

        void add(Latencies o) {
            for (int i = 0; i < counts.length; i++) {
                counts[i] += o.counts[i];
            }
        }

        double percentileMicros(double p) {
            long total = Arrays.stream(counts).sum();
            long target = (long) Math.ceil(total * p);
            long seen = 0;
            for (int i = 0; i < counts.length; i++) {
                seen += counts[i];
                if (seen >= target && counts[i] > 0) {
                    int exp = i / 16;
                    int sub = i % 16;
                    double upper = exp < 4 ? (1L << (exp + 1)) : (16 + sub + 1) * Math.pow(2, exp - 4);
                    return upper / 1000.0;
                }
            }
            return 0;
        }
    }

    private record Phase(double opsPerSec, double p50Micros, double p99Micros, double p999Micros) {
        String json() {
            return String.format(
                    Locale.ROOT,
                    "{\"ops_per_sec\": %.0f, \"p50_us\": %.1f, \"p99_us\": %.1f, " + "\"p999_us\": %.1f}",
                    opsPerSec,
                    p50Micros,
                    p99Micros,
                    p999Micros);
        }
    }

    private static Phase timed(int threads, int seconds, Work work) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] ops = new long[threads];
        Latencies[] lat = new Latencies[threads];
        Throwable[] failure = new Throwable[1];
        List<Thread> list = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            lat[t] = new Latencies();
            Thread th = new Thread(
                    () -> {
                        SplittableRandom rnd = new SplittableRandom(id * 7919L + 1);
                        ready.countDown();
                        try {
                            go.await();
                            ops[id] = work.run(id, rnd, stop, lat[id]);
                        } catch (Throwable e) {
                            failure[0] = e;
                        }
                    },
                    "bench-" + t);
            list.add(th);
            th.start();
        }
        ready.await();
        long t0 = System.nanoTime();
        go.countDown();
        Thread.sleep(seconds * 1000L); // a benchmark phase of fixed length, not a test waiting for something
        stop.set(true);
        for (Thread th : list) {
            th.join();
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        if (failure[0] != null) {
            throw new IllegalStateException("benchmark thread failed", failure[0]);
        }
        Latencies all = new Latencies();
        for (Latencies l : lat) {
            all.add(l);
        }
        return new Phase(
                Arrays.stream(ops).sum() / elapsed,
                all.percentileMicros(0.5),
                all.percentileMicros(0.99),
                all.percentileMicros(0.999));
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
