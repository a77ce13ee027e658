package dev.dht.node.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.node.support.RawHttp;
import dev.dht.node.support.TestNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The claim of the drain (docs/operations.md, "Planned disruptions"): a client that keeps its connection alive and
 * never retries sees no failed request when a member stops gracefully behind a Service. The Service is played by a
 * balancer that follows readiness as the endpoints follow the probes (it polls {@code /v0/status} of each member)
 * and gives each new connection to a ready member; existing connections stay where they are, as kube-proxy's do.
 * Two standalone members stand behind it (each PUT is acknowledged by whichever member got it).
 */
class DrainUnderKeptAliveClientsTest {
    private static final Duration DRAIN = Duration.ofSeconds(5);
    private static final int CLIENTS = 4;

    @Test
    void keptAliveClientsSeeNoFailedRequestWhileAMemberStops(@TempDir Path a, @TempDir Path b) throws Exception {
        try (TestNode leaving = TestNode.start(a, c -> c.withDrainTime(DRAIN)); // closing twice is harmless
                TestNode staying = TestNode.start(b, c -> c.withDrainTime(DRAIN));
                Balancer balancer = new Balancer(List.of(leaving.port(), staying.port()))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> balancer.ready().size() == 2);
            Clients clients = new Clients(balancer);
            try {
                clients.start();
                // Every client holds a connection; some of them to the member that is about to stop.
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> clients.acked(leaving.port()) >= 200 && clients.acked(staying.port()) >= 200);
                long onLeavingBefore = clients.acked(leaving.port());
                CompletableFuture<Void> stop = CompletableFuture.runAsync(leaving::close); // what SIGTERM does
                stop.get(60, TimeUnit.SECONDS);
                long afterStop = clients.total();
                await().atMost(Duration.ofSeconds(60)).until(() -> clients.total() >= afterStop + 500);
                clients.stop();

                assertThat(clients.failures())
                        .as("requests that failed while a member stopped (a client that "
                                + "does not retry meets each of them)")
                        .isEmpty();
                assertThat(clients.acked(leaving.port()))
                        .as("the stopping member served its kept-alive clients " + "while it drained")
                        .isGreaterThan(onLeavingBefore);
            } finally {
                clients.stop();
            }
        }
    }

    /** Readiness as the endpoints see it: a member is ready while its /v0/status answers 200. */
    private static final class Balancer implements AutoCloseable {
        private final List<Integer> ports;
        private final Map<Integer, Boolean> ready = new ConcurrentHashMap<>();
        private final AtomicInteger next = new AtomicInteger();
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final Thread poller;

        Balancer(List<Integer> ports) {
            this.ports = ports;
            poller = Thread.ofPlatform().daemon().name("balancer").start(this::poll);
        }

        private void poll() {
            while (!stopped.get()) {
                for (int port : ports) {
                    ready.put(port, status(port) == 200);
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private static int status(int port) {
            try (RawHttp http = new RawHttp(port)) {
                http.send("GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                return http.read().status();
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        List<Integer> ready() {
            return ports.stream().filter(p -> ready.getOrDefault(p, false)).toList();
        }

        /** The member a new connection goes to (-1: none ready, which the test counts as a failure). */
        int pick() {
            List<Integer> up = ready();
            return up.isEmpty() ? -1 : up.get(Math.floorMod(next.getAndIncrement(), up.size()));
        }

        @Override
        public void close() throws InterruptedException {
            stopped.set(true);
            poller.join(10_000);
        }
    }

    /**
     * Writers that keep their connection until the server ends it (Connection: close), open the next one through
     * the balancer, and never retry: any error or non-201 answer is a failure a user would see.
     */
    private static final class Clients {
        private final Balancer balancer;
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final Map<Integer, AtomicLong> acked = new ConcurrentHashMap<>();
        private final Queue<String> failures = new ConcurrentLinkedQueue<>();
        private final List<Thread> threads = new ArrayList<>();

        Clients(Balancer balancer) {
            this.balancer = balancer;
        }

        void start() {
            for (int i = 0; i < CLIENTS; i++) {
                int client = i;
                threads.add(Thread.ofPlatform().daemon().name("client-" + i).start(() -> write(client)));
            }
        }

        private void write(int client) {
            RawHttp conn = null;
            int port = -1;
            for (long n = 0; !stopped.get(); n++) {
                try {
                    if (conn == null) {
                        port = balancer.pick();
                        if (port < 0) {
                            failures.add("no member ready");
                            Thread.sleep(50);
                            continue;
                        }
                        conn = new RawHttp(port);
                    }
                    conn.send("PUT /v0/entity?id=c" + client + "-" + n + " HTTP/1.1\r\nHost: x\r\n"
                            + "Content-Length: 1\r\n\r\nv");
                    RawHttp.Reply reply = conn.read();
                    if (reply.status() == 201) {
                        acked.computeIfAbsent(port, p -> new AtomicLong()).incrementAndGet();
                    } else {
                        failures.add(port + ": " + reply.status() + " "
                                + reply.bodyText().trim());
                    }
                    if ("close".equalsIgnoreCase(reply.headers().get("connection"))) {
                        conn.close();
                        conn = null;
                    }
                } catch (IOException e) {
                    failures.add(port + ": " + e);
                    conn = closeQuietly(conn);
                } catch (InterruptedException e) {
                    break;
                }
            }
            closeQuietly(conn);
        }

        private static RawHttp closeQuietly(RawHttp conn) {
            if (conn != null) {
                try {
                    conn.close();
                } catch (IOException ignored) {
                    // closing a broken connection
                }
            }
            return null;
        }

        long acked(int port) {
            AtomicLong n = acked.get(port);
            return n == null ? 0 : n.get();
        }

        long total() {
            return acked.values().stream().mapToLong(AtomicLong::get).sum();
        }

        List<String> failures() {
            return List.copyOf(failures);
        }

        void stop() throws InterruptedException {
            stopped.set(true);
            for (Thread t : threads) {
                t.join(30_000);
            }
        }
    }
}
