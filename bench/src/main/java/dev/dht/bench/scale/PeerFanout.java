package dev.dht.bench.scale;

import dev.dht.node.config.SecuritySettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Connections, threads and hints of one real node process at N members, measured: the node (its jar, as it runs
 * in production, with a static member list and RF 3) believes in N - 1 peers, of which N - 2 are {@link FakePeers}
 * on loopback and one is down (its port refuses). A client writes {@code writes(N)} keys through the node, which
 * replicates each to its three replicas: every peer is touched, and the keys the down member replicates leave
 * hints. Then the node's open sockets and files ({@code /proc/<pid>/fd}), threads ({@code /proc/<pid>/task}, by
 * name), resident memory, its connections as the peers count them, and its hint figures ({@code /metrics}) are
 * read; finally the down member comes back and the time until every hint is delivered is taken. Linux only.
 */
final class PeerFanout {
    static final int CONCURRENCY = 64;
    static final int VALUE_BYTES = 1024;
    private static final Pattern METRIC = Pattern.compile("(?m)^(dht_hints_\\w+)(?:\\{[^}]*})? ([0-9.eE+-]+)$");

    record Result(
            int members,
            int writes,
            int stored,
            long socketsIdle,
            long threadsIdle,
            long sockets,
            long otherFds,
            long threads,
            Map<String, Integer> threadsByName,
            long rssMb,
            int peersTouched,
            int peerConnections,
            int maxConnectionsToOnePeer,
            long hintsStored,
            long hintBytes,
            long hintThreads,
            long hintsDelivered,
            double deliverSeconds,
            double writeSeconds) {
        double hintBytesEach() {
            return hintsStored == 0 ? 0 : (double) hintBytes / hintsStored;
        }
    }

    /** Enough writes that each peer replicates about 60 of them (3 of every N), at least 3,000. */
    static int writes(int n) {
        return Math.max(3000, 20 * n);
    }

    static Result measure(int n, List<String> nodeCommand, Path work) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(work, "fanout-" + n + "-");
        try (FakePeers peers = new FakePeers()) {
            int offset = SecuritySettings.DEFAULT_MEMBER_PORT_OFFSET;
            List<String> urls = new ArrayList<>();
            List<Integer> live = new ArrayList<>();
            for (int i = 0; i < n - 2; i++) {
                int m = peers.listen(0);
                live.add(m);
                urls.add("http://127.0.0.1:" + (m - offset));
            }
            int down = freeMemberPort(offset);
            urls.add("http://127.0.0.1:" + (down - offset));
            int self = freeMemberPort(offset) - offset;
            urls.add("http://127.0.0.1:" + self);
            List<String> cmd = new ArrayList<>(nodeCommand);
            cmd.addAll(List.of(
                    "--port",
                    String.valueOf(self),
                    "--data-dir",
                    dir.resolve("data").toString(),
                    "--cluster",
                    String.join(",", urls),
                    "--replication-factor",
                    "3",
                    "--hint-interval",
                    "200ms"));
            Process node = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("node.log").toFile())
                    .start();
            try {
                HttpClient http = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(2))
                        .build();
                String base = "http://127.0.0.1:" + self;
                awaitReady(http, base, node, dir);
                long pid = node.pid();
                long socketsIdle = fds(pid)[0];
                long threadsIdle = threadNames(pid).values().stream()
                        .mapToInt(Integer::intValue)
                        .sum();

                int writes = writes(n);
                long t0 = System.nanoTime();
                int stored = write(http, base, writes);
                double writeSeconds = (System.nanoTime() - t0) / 1e9;
                long[] fds = fds(pid);
                Map<String, Integer> names = threadNames(pid);
                long threads =
                        names.values().stream().mapToInt(Integer::intValue).sum();
                int touched = 0;
                int connections = 0;
                int most = 0;
                for (int port : live) {
                    FakePeers.Port p = peers.port(port);
                    touched += p.requests.get() > 0 ? 1 : 0;
                    connections += p.open.get();
                    most = Math.max(most, p.open.get());
                }
                Map<String, Double> hints = hintMetrics(http, base);
                long rss = rssKb(pid) / 1024;

                long t1 = System.nanoTime();
                peers.listen(down); // the down member is back: its hints are offered to it
                long deadline = t1 + Duration.ofSeconds(60).toNanos();
                while (hintMetrics(http, base).getOrDefault("dht_hints_pending", 0.0) > 0
                        && System.nanoTime() < deadline) {
                    Thread.sleep(20); // polling the node's gauge, not waiting for a result
                }
                double deliver = (System.nanoTime() - t1) / 1e9;
                long delivered = hintMetrics(http, base)
                        .getOrDefault("dht_hints_delivered", 0.0)
                        .longValue();
                return new Result(
                        n,
                        writes,
                        stored,
                        socketsIdle,
                        threadsIdle,
                        fds[0],
                        fds[1],
                        threads,
                        names,
                        rss,
                        touched,
                        connections,
                        most,
                        hints.getOrDefault("dht_hints_stored", 0.0).longValue(),
                        hints.getOrDefault("dht_hints_bytes", 0.0).longValue(),
                        names.getOrDefault("dht-hints", 0),
                        delivered,
                        deliver,
                        writeSeconds);
            } finally {
                node.destroy();
                if (!node.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                    node.destroyForcibly().waitFor();
                }
            }
        } finally {
            delete(dir);
        }
    }

    /** A loopback port free now whose client port (port - offset) is free too. */
    private static int freeMemberPort(int offset) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (ServerSocket member = new ServerSocket()) {
                member.bind(new InetSocketAddress("127.0.0.1", 0));
                int m = member.getLocalPort();
                if (m - offset < 1024) {
                    continue;
                }
                try (ServerSocket client = new ServerSocket()) {
                    client.bind(new InetSocketAddress("127.0.0.1", m - offset));
                    return m;
                } catch (IOException taken) {
                    // try another
                }
            }
        }
        throw new IOException("no free pair of loopback ports " + offset + " apart");
    }

    private static void awaitReady(HttpClient http, String base, Process node, Path dir)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            if (!node.isAlive()) {
                throw new IOException("the node exited (" + node.exitValue() + "): " + tail(dir.resolve("node.log")));
            }
            try {
                HttpResponse<Void> r = http.send(
                        HttpRequest.newBuilder(URI.create(base + "/v0/status"))
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(50); // polling the node's status, not waiting for a result
        }
        throw new IOException("the node did not become ready in 90 s: " + tail(dir.resolve("node.log")));
    }

    /** Writes keys 0..count through the node, CONCURRENCY at a time; returns how many were stored (201). */
    private static int write(HttpClient http, String base, int count) throws InterruptedException {
        Semaphore slots = new Semaphore(CONCURRENCY);
        AtomicInteger stored = new AtomicInteger();
        byte[] value = new byte[VALUE_BYTES];
        for (int i = 0; i < count; i++) {
            slots.acquire();
            http.sendAsync(
                            HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=scale-" + i))
                                    .timeout(Duration.ofSeconds(10))
                                    .PUT(HttpRequest.BodyPublishers.ofByteArray(value))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .whenComplete((r, e) -> {
                        if (r != null && r.statusCode() == 201) {
                            stored.incrementAndGet();
                        }
                        slots.release();
                    });
        }
        slots.acquire(CONCURRENCY);
        return stored.get();
    }

    private static Map<String, Double> hintMetrics(HttpClient http, String base)
            throws IOException, InterruptedException {
        String text = http.send(
                        HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Map<String, Double> out = new TreeMap<>();
        Matcher m = METRIC.matcher(text);
        while (m.find()) {
            out.merge(m.group(1).replace("_total", ""), Double.parseDouble(m.group(2)), Double::sum);
        }
        return out;
    }

    /** [sockets, other descriptors] the process holds open. */
    static long[] fds(long pid) throws IOException {
        long sockets = 0;
        long other = 0;
        try (Stream<Path> s = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    if (Files.readSymbolicLink(p).toString().startsWith("socket:")) {
                        sockets++;
                    } else {
                        other++;
                    }
                } catch (IOException closedMeanwhile) {
                    // gone between the listing and the read
                }
            }
        }
        return new long[] {sockets, other};
    }

    /** The process's threads by name, digits folded ("dht-worker-3" counts as "dht-worker-#"). */
    static Map<String, Integer> threadNames(long pid) throws IOException {
        Map<String, Integer> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path t : (Iterable<Path>) s::iterator) {
                try {
                    String name = Files.readString(t.resolve("comm")).trim().replaceAll("[0-9]+", "#");
                    out.merge(name, 1, Integer::sum);
                } catch (IOException ended) {
                    // the thread ended meanwhile
                }
            }
        }
        return out;
    }

    private static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return -1;
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
