package dev.dht.node.peer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The client against real sockets: a hand-written HTTP peer, a closed port, a full pipeline. */
class PeerClientTest {

    /** Outcome of one call. */
    record Outcome(PeerResponse response, Boolean timeout, String reason) {}

    private static CompletableFuture<Outcome> call(PeerClient client, String peer, String target, long timeoutMs) {
        return callBy(client, peer, target, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
    }

    private static CompletableFuture<Outcome> callBy(PeerClient client, String peer, String target, long deadline) {
        CompletableFuture<Outcome> f = new CompletableFuture<>();
        client.send(peer, new PeerRequest("PUT", target, 5, 9, "body".getBytes()), deadline, new PeerCallback() {
            @Override
            public void completed(PeerResponse response) {
                f.complete(new Outcome(response, null, null));
            }

            @Override
            public void failed(boolean timeout, String reason) {
                f.complete(new Outcome(null, timeout, reason));
            }
        });
        return f;
    }

    @Test
    void pipelinedCallsGetTheirOwnAnswersInOrder() throws Exception {
        List<String> requests = new CopyOnWriteArrayList<>();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                PeerClient client = new PeerClient(1, 16, Duration.ofSeconds(1), Duration.ofSeconds(10))) {
            Thread peer = new Thread(() -> {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    for (int n = 0; n < 5; n++) {
                        String head = readHead(in);
                        requests.add(head);
                        in.readNBytes(4); // the body
                        String id = head.substring(head.indexOf("id=") + 3, head.indexOf(" HTTP/1.1"));
                        out.write(("HTTP/1.1 201 Created\r\nContent-Length: " + id.length() + "\r\nX-Dht-Clock: " + n
                                        + "\r\nX-Dht-Call: " + callOf(head) + "\r\n\r\n" + id)
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                } catch (IOException e) {
                    // test over
                }
            });
            peer.start(); // accepts one connection only: all five calls must share it
            String url = "http://localhost:" + server.getLocalPort();
            List<CompletableFuture<Outcome>> calls = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                calls.add(call(client, url, "/v0/entity?id=k" + i, 5000));
            }
            for (int i = 0; i < 5; i++) {
                Outcome o = calls.get(i).get(5, TimeUnit.SECONDS);
                assertThat(o.response()).as("call %d: %s", i, o.reason()).isNotNull();
                assertThat(new String(o.response().body(), StandardCharsets.US_ASCII))
                        .isEqualTo("k" + i);
            }
            assertThat(requests.get(0))
                    .startsWith("PUT /v0/entity?id=k0 HTTP/1.1\r\n")
                    .contains("X-Dht-Internal: 1\r\n")
                    .contains("X-Dht-Clock: 5\r\n")
                    .contains("X-Dht-Timestamp: 9\r\n")
                    .contains("Content-Length: 4\r\n");
            assertThat(client.outcomes().ok()).isEqualTo(5);
            peer.join(5000);
        }
    }

    /**
     * Calls made while the I/O thread is awake are not written by their caller but queued for one coalesced write
     * that the I/O thread makes before it sleeps. A callback runs on that thread, so calls made from it always take
     * this path: if the queued write were forgotten they would never be answered.
     */
    @Test
    void callsMadeWhileTheIoThreadIsAwakeAreWrittenTogetherBeforeItSleeps() throws Exception {
        int follow = 10;
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                PeerClient client = new PeerClient(1, 32, Duration.ofSeconds(1), Duration.ofSeconds(10))) {
            Thread peer = new Thread(() -> {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    for (int n = 0; n <= follow; n++) {
                        String head = readHead(in);
                        in.readNBytes(4);
                        String id = head.substring(head.indexOf("id=") + 3, head.indexOf(" HTTP/1.1"));
                        out.write(("HTTP/1.1 201 Created\r\nContent-Length: " + id.length() + "\r\nX-Dht-Call: "
                                        + callOf(head) + "\r\n\r\n" + id)
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                } catch (IOException e) {
                    // test over
                }
            });
            peer.start();
            String url = "http://localhost:" + server.getLocalPort();
            List<CompletableFuture<Outcome>> followers = new CopyOnWriteArrayList<>();
            CompletableFuture<Thread> firstAnsweredOn = new CompletableFuture<>();
            client.send(
                    url,
                    new PeerRequest("PUT", "/v0/entity?id=first", 1, 1, "body".getBytes()),
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(5),
                    new PeerCallback() {
                        @Override
                        public void completed(PeerResponse response) {
                            for (int i = 0; i < follow; i++) {
                                followers.add(call(client, url, "/v0/entity?id=f" + i, 5000));
                            }
                            firstAnsweredOn.complete(Thread.currentThread());
                        }

                        @Override
                        public void failed(boolean timeout, String reason) {
                            firstAnsweredOn.completeExceptionally(new AssertionError(reason));
                        }
                    });
            assertThat(firstAnsweredOn.get(5, TimeUnit.SECONDS).getName()).isEqualTo("dht-peer-io");
            for (int i = 0; i < follow; i++) {
                Outcome o = followers.get(i).get(5, TimeUnit.SECONDS);
                assertThat(o.response()).as("call %d: %s", i, o.reason()).isNotNull();
                assertThat(new String(o.response().body(), StandardCharsets.US_ASCII))
                        .isEqualTo("f" + i);
            }
            peer.join(5000);
        }
    }

    @Test
    void aClosedPortFailsAtOnceAndAFullPipelineFailsWithoutQueueing() throws Exception {
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                PeerClient client = new PeerClient(1, 2, Duration.ofSeconds(30), Duration.ofSeconds(10))) {
            // Connect timeout and deadline are 30 s: a refused connection must fail as an error long before either.
            long start = System.nanoTime();
            Outcome refused =
                    call(client, "http://localhost:" + dead, "/x", 30_000).get(30, TimeUnit.SECONDS);
            assertThat(refused.timeout()).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));

            String url = "http://localhost:" + silent.getLocalPort();
            // one deadline for both: the connection closes when the first expires, and the second must be past
            // its deadline too at that moment to count as a timeout (a later one would fail as an error)
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            CompletableFuture<Outcome> first = callBy(client, url, "/a", deadline);
            CompletableFuture<Outcome> second = callBy(client, url, "/b", deadline);
            Outcome third = call(client, url, "/c", 300).get(10, TimeUnit.SECONDS);
            assertThat(third.timeout())
                    .as("one connection, two in flight: no room")
                    .isFalse();
            assertThat(third.reason()).contains("saturated");
            assertThat(first.get(5, TimeUnit.SECONDS).timeout()).isTrue();
            assertThat(second.get(5, TimeUnit.SECONDS).timeout()).isTrue();
            assertThat(client.outcomes().timeout()).isEqualTo(2);
            assertThat(client.outcomes().error()).isEqualTo(2);
        }
    }

    /**
     * A callback runs on the client's I/O thread; one that throws (a read repair's local write refused by a full
     * disk did, in make chaos) used to end that thread, and with it every later call of the node: none was ever
     * answered again.
     */
    @Test
    void aCallbackThatThrowsDoesNotStopTheClient() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                PeerClient client = new PeerClient(1, 16, Duration.ofSeconds(5), Duration.ofSeconds(10))) {
            String url = "http://localhost:" + silent.getLocalPort();
            CompletableFuture<Boolean> threw = new CompletableFuture<>();
            client.send(
                    url,
                    new PeerRequest("GET", "/a", 5, 0, null),
                    System.nanoTime() + 200_000_000L,
                    new PeerCallback() {
                        @Override
                        public void completed(PeerResponse response) {
                            threw.complete(false);
                        }

                        @Override
                        public void failed(boolean timeout, String reason) {
                            threw.complete(timeout);
                            throw new IllegalStateException("a callback that throws, on the I/O thread");
                        }
                    });
            assertThat(threw.get(10, TimeUnit.SECONDS))
                    .as("the first call timed out, on the I/O thread")
                    .isTrue();
            Outcome next = call(client, url, "/b", 200).get(10, TimeUnit.SECONDS);
            assertThat(next.timeout()).as("the I/O thread still expires calls").isTrue();
            assertThat(client.outcomes().timeout()).isEqualTo(2);
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed");
            }
            sb.append((char) b);
        }
        return sb.toString();
    }

    @Test
    void aReusedConnectionThePeerClosesUnderARequestIsRetriedOnceOnANewOne() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                PeerClient client = new PeerClient(1, 16, Duration.ofSeconds(1), Duration.ofMillis(200))) {
            Thread peer = new Thread(() -> {
                try {
                    try (Socket first = server.accept()) {
                        answer(first, "one");
                        readHead(first.getInputStream()); // the second request arrives... and the peer closes
                    }
                    try (Socket second = server.accept()) {
                        answer(second, "two");
                    }
                } catch (IOException e) {
                    // test over
                }
            });
            peer.start();
            String url = "http://localhost:" + server.getLocalPort();
            assertThat(call(client, url, "/1", 5000).get(5, TimeUnit.SECONDS).response())
                    .isNotNull();
            Outcome second = call(client, url, "/2", 5000).get(5, TimeUnit.SECONDS);
            assertThat(second.response()).as(String.valueOf(second.reason())).isNotNull();
            assertThat(new String(second.response().body(), StandardCharsets.US_ASCII))
                    .isEqualTo("two");
            assertThat(client.outcomes().error()).isZero();
            peer.join(5000);
            // unused for longer than its idle limit, the connection is closed by the client itself
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> client.connections(url) == 0);
        }
    }

    private static void answer(Socket s, String body) throws IOException {
        String head = readHead(s.getInputStream());
        s.getInputStream().readNBytes(4);
        s.getOutputStream().write(answer(callOf(head), body));
        s.getOutputStream().flush();
    }

    private static byte[] answer(String call, String body) {
        return ("HTTP/1.1 201 Created\r\nContent-Length: " + body.length() + "\r\nX-Dht-Call: " + call + "\r\n\r\n"
                        + body)
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** The X-Dht-Call number of a request head (every internal request carries one). */
    private static String callOf(String head) {
        int i = head.indexOf("X-Dht-Call: ");
        assertThat(i).as("X-Dht-Call in " + head).isPositive();
        return head.substring(i + "X-Dht-Call: ".length(), head.indexOf("\r\n", i));
    }

    /**
     * Answers come back in any order and are matched by their call number; a call past its deadline fails alone,
     * on a connection that stays open, and its late answer is dropped.
     */
    @Test
    void answersAreMatchedByCallNumberInAnyOrderAndALateOneIsDropped() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                PeerClient client = new PeerClient(1, 16, Duration.ofSeconds(1), Duration.ofSeconds(10))) {
            CompletableFuture<Void> peerDone = new CompletableFuture<>();
            Thread peer = new Thread(() -> {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    String[] calls = new String[3];
                    for (int n = 0; n < 3; n++) {
                        calls[n] = callOf(readHead(in));
                        in.readNBytes(4);
                    }
                    out.write(answer(calls[2], "c")); // backwards: the last first
                    out.write(answer(calls[1], "b"));
                    out.flush();
                    // "a" stays unanswered until its caller gave up (the test sends "d" only then); then it comes late
                    String fourth = callOf(readHead(in));
                    in.readNBytes(4);
                    out.write(answer(calls[0], "a"));
                    out.write(answer(fourth, "d"));
                    out.flush();
                    peerDone.complete(null);
                    in.read(); // until the client closes
                } catch (IOException e) {
                    peerDone.completeExceptionally(e);
                }
            });
            peer.start();
            String url = "http://localhost:" + server.getLocalPort();
            long soon = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            CompletableFuture<Outcome> a = callBy(client, url, "/v0/entity?id=a", soon);
            CompletableFuture<Outcome> b = call(client, url, "/v0/entity?id=b", 5000);
            CompletableFuture<Outcome> c = call(client, url, "/v0/entity?id=c", 5000);
            assertThat(new String(c.get(5, TimeUnit.SECONDS).response().body(), StandardCharsets.US_ASCII))
                    .isEqualTo("c");
            assertThat(new String(b.get(5, TimeUnit.SECONDS).response().body(), StandardCharsets.US_ASCII))
                    .isEqualTo("b");
            Outcome late = a.get(5, TimeUnit.SECONDS);
            assertThat(late.timeout()).as("a failed at its own deadline").isTrue();

            Outcome d = call(client, url, "/v0/entity?id=d", 5000).get(5, TimeUnit.SECONDS);
            assertThat(d.response())
                    .as("same connection, still usable: " + d.reason())
                    .isNotNull();
            assertThat(new String(d.response().body(), StandardCharsets.US_ASCII))
                    .isEqualTo("d");
            peerDone.get(5, TimeUnit.SECONDS);
            assertThat(client.outcomes().ok()).isEqualTo(3);
            assertThat(client.outcomes().timeout()).isEqualTo(1);
            assertThat(client.connections(url)).isEqualTo(1);
        }
    }

    @Test
    void aConnectionThatCannotConnectIsDroppedAtTheConnectTimeoutAndTheNextCallDialsAgain() throws Exception {
        // A listener whose accept queue is full drops new SYNs (Linux), so a connect to it hangs, as one to the
        // old IP of a replaced pod does: the backlog of 1 is filled by sockets nobody accepts.
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                PeerClient client = new PeerClient(1, 16, Duration.ofMillis(300), Duration.ofSeconds(10))) {
            List<Socket> fillers = new CopyOnWriteArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Socket filler = new Socket();
                    try {
                        filler.connect(server.getLocalSocketAddress(), 200);
                        fillers.add(filler);
                    } catch (IOException queueFull) {
                        filler.close();
                        break;
                    }
                }
                String url = "http://localhost:" + server.getLocalPort();
                Outcome first = call(client, url, "/v0/entity?id=a", 10_000).get(5, TimeUnit.SECONDS);
                assertThat(first.response()).isNull();
                assertThat(first.reason()).contains("within the connect timeout");
                assertThat(first.timeout())
                        .as("failed at the connect timeout, long before its own deadline")
                        .isFalse();
                assertThat(client.connections(url)).isZero();

                // The queue drains: the next call connects on a new connection. The fillers are taken off the accept
                // queue before that call: a SYN that finds the queue still full is dropped, and its retransmission
                // (1 s later) would miss the 300 ms connect timeout (a flake on a busy machine, where the peer thread
                // below had not drained the queue yet).
                server.setSoTimeout(5_000); // each filler is queued (its connect returned): accept does not wait
                for (Socket filler : fillers) {
                    filler.close();
                    server.accept().close();
                }
                server.setSoTimeout(0);
                CompletableFuture<Void> answered = new CompletableFuture<>();
                Thread peer = new Thread(() -> {
                    try {
                        while (!answered.isDone()) {
                            try (Socket s = server.accept()) {
                                InputStream in = s.getInputStream();
                                String head;
                                try {
                                    head = readHead(in);
                                } catch (IOException fillerClosed) {
                                    continue; // a filler the kernel had queued
                                }
                                in.readNBytes(4);
                                s.getOutputStream().write(answer(callOf(head), "b"));
                                s.getOutputStream().flush();
                                answered.complete(null);
                                in.read();
                            }
                        }
                    } catch (IOException e) {
                        answered.completeExceptionally(e);
                    }
                });
                peer.start();
                Outcome second = call(client, url, "/v0/entity?id=b", 5000).get(5, TimeUnit.SECONDS);
                assertThat(second.response())
                        .as(String.valueOf(second.reason()))
                        .isNotNull();
                assertThat(new String(second.response().body(), StandardCharsets.US_ASCII))
                        .isEqualTo("b");
            } finally {
                for (Socket filler : fillers) {
                    filler.close();
                }
            }
        }
    }

    @Test
    void aConnectionOnWhichCallsTimeOutWhileThePeerSendsNothingIsClosedAndTheNextCallUsesANewOne() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                PeerClient client = new PeerClient(1, 16, Duration.ofMillis(200), Duration.ofSeconds(10))) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Thread peer = new Thread(() -> {
                // The first connection reads its request and never answers (a peer gone silent); the second answers.
                try (Socket silent = server.accept()) {
                    readHead(silent.getInputStream());
                    try (Socket s = server.accept()) {
                        InputStream in = s.getInputStream();
                        String head = readHead(in);
                        in.readNBytes(4);
                        s.getOutputStream().write(answer(callOf(head), "b"));
                        s.getOutputStream().flush();
                        done.complete(null);
                        in.read();
                    }
                } catch (IOException e) {
                    done.completeExceptionally(e);
                }
            });
            peer.start();
            String url = "http://localhost:" + server.getLocalPort();
            Outcome first = call(client, url, "/v0/entity?id=a", 300).get(5, TimeUnit.SECONDS);
            assertThat(first.timeout()).isTrue();
            // Nothing came back for longer than the connect timeout: the connection goes, and with it the pool's
            // only slot, so the next call must dial a new one (the silent peer never answers anything).
            Outcome second = call(client, url, "/v0/entity?id=b", 5000).get(5, TimeUnit.SECONDS);
            assertThat(second.response()).as(String.valueOf(second.reason())).isNotNull();
            assertThat(new String(second.response().body(), StandardCharsets.US_ASCII))
                    .isEqualTo("b");
            done.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWatchedCallHearsItIsSlowOnceAtItsMarkAndStillEndsAtItsDeadline() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                PeerClient client = new PeerClient(1, 16, Duration.ofSeconds(5), Duration.ofSeconds(10))) {
            Thread peer = new Thread(() -> {
                try (Socket silent = server.accept()) { // reads the request, never answers
                    readHead(silent.getInputStream());
                    silent.getInputStream().read();
                } catch (IOException e) {
                    // test over
                }
            });
            peer.setDaemon(true);
            peer.start();
            List<String> events = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> ended = new CompletableFuture<>();
            long now = System.nanoTime();
            client.send(
                    "http://localhost:" + server.getLocalPort(),
                    new PeerRequest("GET", "/v0/entity?id=s", 1, 0, null, null),
                    now + TimeUnit.MILLISECONDS.toNanos(1500),
                    now + TimeUnit.MILLISECONDS.toNanos(100),
                    new PeerCallback() {
                        @Override
                        public void completed(PeerResponse response) {
                            events.add("completed");
                            ended.complete(null);
                        }

                        @Override
                        public void failed(boolean timeout, String reason) {
                            events.add(timeout ? "timeout" : "failed");
                            ended.complete(null);
                        }

                        @Override
                        public void slow() {
                            events.add("slow");
                        }
                    });
            ended.get(5, TimeUnit.SECONDS);
            assertThat(events).containsExactly("slow", "timeout");
        }
    }
}
