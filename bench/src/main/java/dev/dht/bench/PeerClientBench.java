package dev.dht.bench;

import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Which inter-node client: the node's {@link PeerClient} against java.net.http.HttpClient (async), each keeping
 * the same number of PUTs of 100 bytes in flight against a server in another process (BareServer), in alternating
 * rounds. Reports calls per second and this process's CPU time per call, i.e. the client's own cost.
 *
 * <p>Usage: java -cp dht-bench.jar:dht-node.jar dev.dht.bench.PeerClientBench PORT [SECONDS_PER_ROUND] [IN_FLIGHT] [ROUNDS]
 */
public final class PeerClientBench {
    private static final byte[] BODY = "0123456789".repeat(10).getBytes();

    private PeerClientBench() {}

    interface Client extends AutoCloseable {
        /** Sends one call and runs done when it completes (any outcome). */
        void call(long n, Runnable done);

        @Override
        void close();
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: PeerClientBench PORT [SECONDS_PER_ROUND] [IN_FLIGHT] [ROUNDS]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int inFlight = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        String base = "http://127.0.0.1:" + port;
        for (int r = 0; r < rounds; r++) {
            for (String name : new String[] {"peer-client", "jdk-httpclient"}) {
                try (Client c = name.equals("peer-client") ? peerClient(base) : jdkClient(base)) {
                    run(name, c, 2, inFlight); // warm-up
                    double[] result = run(name, c, seconds, inFlight);
                    System.out.printf(
                            "%s round=%d calls_per_s=%.0f cpu_us_per_call=%.2f%n", name, r, result[0], result[1]);
                }
            }
        }
    }

    private static double[] run(String name, Client client, int seconds, int inFlight) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        LongAdder calls = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch drained = new CountDownLatch(inFlight);
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < inFlight; i++) {
            loop(client, calls, stop, drained, i);
        }
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        long t1 = System.nanoTime();
        long n = calls.sum();
        long cpu1 = os.getProcessCpuTime();
        if (!drained.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + ": calls did not complete");
        }
        return new double[] {n * 1e9 / (t1 - t0), (cpu1 - cpu0) / 1000.0 / n};
    }

    private static void loop(Client client, LongAdder calls, AtomicBoolean stop, CountDownLatch drained, long n) {
        client.call(n, () -> {
            calls.increment();
            if (stop.get()) {
                drained.countDown();
            } else {
                loop(client, calls, stop, drained, n + 1);
            }
        });
    }

    private static Client peerClient(String base) {
        PeerClient client = new PeerClient(8, 128, Duration.ofSeconds(1), Duration.ofSeconds(10));
        return new Client() {
            @Override
            public void call(long n, Runnable done) {
                client.send(
                        base,
                        new PeerRequest("PUT", "/v0/entity?id=k" + n, 1, 1, BODY),
                        System.nanoTime() + 5_000_000_000L,
                        new PeerCallback() {
                            @Override
                            public void completed(PeerResponse response) {
                                done.run();
                            }

                            @Override
                            public void failed(boolean timeout, String reason) {
                                done.run();
                            }
                        });
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    private static Client jdkClient(String base) {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(1))
                .build();
        return new Client() {
            @Override
            public void call(long n, Runnable done) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=k" + n))
                        .header("X-Dht-Internal", "1")
                        .header("X-Dht-Clock", "1")
                        .header("X-Dht-Timestamp", "1")
                        .timeout(Duration.ofSeconds(5))
                        .PUT(HttpRequest.BodyPublishers.ofByteArray(BODY))
                        .build();
                client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                        .whenComplete((r, e) -> done.run());
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
