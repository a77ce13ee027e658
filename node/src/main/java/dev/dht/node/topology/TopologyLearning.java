package dev.dht.node.topology;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.threads.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link TopologyManager}'s learning: newer states fetched from members, one at a time on its own thread. */
final class TopologyLearning {
    private static final Logger log = LoggerFactory.getLogger(TopologyManager.class);

    private final TopologyManager manager;
    private final String self;
    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final long timeoutNanos;
    private final Predicate<String> member;
    /** Null for a fixed member list: nothing is learned. */
    private final ExecutorService learning;

    private final AtomicBoolean fetching = new AtomicBoolean();
    private final AtomicLong notMembers = new AtomicLong();
    private volatile boolean closed;

    TopologyLearning(
            TopologyManager manager,
            boolean changeable,
            String self,
            PeerClient client,
            HybridLogicalClock clock,
            long timeoutNanos,
            Predicate<String> member) {
        this.learning =
                changeable ? Executors.newSingleThreadExecutor(DaemonThreads.factory("dht-topology", false)) : null;
        this.manager = manager;
        this.self = self;
        this.client = client;
        this.clock = clock;
        this.timeoutNanos = timeoutNanos;
        this.member = member;
    }

    /** See {@link TopologyManager#newerState}. */
    void newerState(String sender, long version) {
        if (learning == null || sender == null || closed || version == TopologyHeader.NONE) {
            return;
        }
        TopologyState s = manager.state();
        if (s != null && version <= s.version()) {
            return;
        }
        if (!member.test(sender)) {
            if (notMembers.getAndIncrement() % 1000 == 0) {
                log.warn(
                        "a topology header names {}, which is not a member: not asked ({} such headers so far)",
                        sender,
                        notMembers.get());
            }
            return;
        }
        if (fetching.compareAndSet(false, true)) {
            try {
                learning.execute(() -> {
                    try {
                        learnFrom(sender);
                    } finally {
                        fetching.set(false);
                    }
                });
            } catch (RuntimeException e) { // closing
                fetching.set(false);
            }
        }
    }

    long notMembers() {
        return notMembers.get();
    }

    void learnFrom(String peer) {
        TopologyReport report = fetch(peer);
        if (report != null) {
            manager.adopt(report, "learned from " + peer);
        }
    }

    TopologyReport fetch(String peer) {
        try {
            return fetchAsync(peer).get(timeoutNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    CompletableFuture<TopologyReport> fetchAsync(String peer) {
        CompletableFuture<TopologyReport> answer = new CompletableFuture<>();
        TopologyState known = manager.state();
        String knownHeader = known == null ? null : manager.headerOf(known);
        String header = knownHeader == null ? null : TopologyHeader.request(knownHeader, self);
        String target = knownHeader == null
                ? TopologyManager.TOPOLOGY_PATH
                : TopologyManager.TOPOLOGY_PATH + "?known=" + knownHeader;
        client.send(
                peer,
                new PeerRequest("GET", target, clock.now(), 0, null, header),
                System.nanoTime() + timeoutNanos,
                new PeerCallback() {
                    @Override
                    public void completed(PeerResponse r) {
                        if (r.clock() > 0) {
                            clock.observe(r.clock());
                        }
                        TopologyReport report = null;
                        if (r.status() == 200) {
                            try {
                                report = TopologyReport.fromJson(
                                        new String(r.body(), StandardCharsets.UTF_8), known, knownHeader);
                            } catch (IllegalArgumentException e) {
                                log.debug("topology of {} unreadable: {}", peer, e.toString());
                            }
                        }
                        answer.complete(report);
                    }

                    @Override
                    public void failed(boolean timeout, String reason) {
                        answer.complete(null);
                    }
                });
        return answer;
    }

    void close() {
        closed = true;
        if (learning != null) {
            learning.shutdownNow();
            try {
                learning.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
