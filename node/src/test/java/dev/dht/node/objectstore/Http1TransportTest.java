package dev.dht.node.objectstore;

import dev.dht.node.support.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The object store's HTTP/1.1 transport against a server on a real loopback socket that answers in the shapes S3
 * servers use and misbehaves on purpose (the S3 calls themselves run against versitygw in S3ClientTest): chunked
 * bodies, kept-alive connections reused, one the server closed replaced, a body ended by the close, a server that
 * never answers.
 */
class Http1TransportTest {
    private ServerSocket server;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<String> requestLines = new CopyOnWriteArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    /** How the test server answers request number n (0-based, over all connections) on its socket. */
    private interface Answer {
        /** false: close the connection after answering. */
        boolean answer(int n, String requestLine, OutputStream out) throws IOException;
    }

    private Http1Transport start(Answer answer) throws IOException {
        server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        AtomicInteger requests = new AtomicInteger();
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    accepted.incrementAndGet();
                    open.add(s);
                    Thread.ofPlatform().daemon().start(() -> serve(s, answer, requests));
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return new Http1Transport(URI.create("http://127.0.0.1:" + server.getLocalPort()), "127.0.0.1",
                Duration.ofSeconds(5));
    }

    private void serve(Socket s, Answer answer, AtomicInteger requests) {
        try (s) {
            InputStream in = s.getInputStream();
            for (;;) {
                List<String> head = new ArrayList<>();
                for (String l = line(in); !l.isEmpty(); l = line(in)) {
                    head.add(l);
                }
                long length = head.stream().filter(h -> h.toLowerCase().startsWith("content-length:"))
                        .mapToLong(h -> Long.parseLong(h.substring(15).trim())).findFirst().orElse(0);
                in.readNBytes((int) length);
                requestLines.add(head.get(0));
                if (!answer.answer(requests.getAndIncrement(), head.get(0), s.getOutputStream())) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the client went away
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("closed");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    private static void write(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
        for (Socket s : open) {
            s.close();
        }
    }

    private static Http1Transport.Body body(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return new Http1Transport.Body() {
            @Override
            public long length() {
                return b.length;
            }

            @Override
            public InputStream open() {
                return new ByteArrayInputStream(b);
            }
        };
    }

    private static String read(Http1Transport.Response r) throws IOException {
        try (InputStream in = r.body()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void chunkedBodiesAreJoinedAndTheConnectionIsKeptForTheNextCall() throws Exception {
        Http1Transport t = start((n, line, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n");
            return true;
        });
        for (int i = 0; i < 3; i++) {
            Http1Transport.Response r = t.exchange("GET", "/b/k" + i, "127.0.0.1", Map.of(), body(""),
                    Duration.ofSeconds(5));
            assertEquals(200, r.status());
            assertEquals("hello, world", read(r));
        }
        assertEquals(List.of("GET /b/k0 HTTP/1.1", "GET /b/k1 HTTP/1.1", "GET /b/k2 HTTP/1.1"), requestLines);
        assertEquals(1, accepted.get(), "three calls on one kept-alive connection");
    }

    @Test
    void aKeptAliveConnectionTheServerClosedIsReplacedAtOnce() throws Exception {
        Http1Transport t = start((n, line, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
            return false; // answers keep-alive, then closes: the next call finds it dead
        });
        for (int i = 0; i < 3; i++) {
            Http1Transport.Response r = t.exchange("PUT", "/b/k" + i, "127.0.0.1", Map.of(), body("value-" + i),
                    Duration.ofSeconds(5));
            assertEquals(200, r.status());
            assertEquals("ok", read(r));
        }
        assertEquals(3, requestLines.size(), "every PUT reached the server once");
        assertEquals(3, accepted.get());
    }

    @Test
    void aBodyEndedByTheCloseIsReadWholeAndItsConnectionNotReused() throws Exception {
        Http1Transport t = start((n, line, out) -> {
            write(out, "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n<Error><Code>NoSuchKey</Code></Error>");
            return false;
        });
        for (int i = 0; i < 2; i++) {
            Http1Transport.Response r = t.exchange("GET", "/b/x", "127.0.0.1", Map.of(), body(""),
                    Duration.ofSeconds(5));
            assertEquals(404, r.status());
            assertEquals("<Error><Code>NoSuchKey</Code></Error>", read(r));
        }
        assertEquals(2, accepted.get());
    }

    @Test
    void aHeadAnswerHasNoBodyWhateverItsLength() throws Exception {
        Http1Transport t = start((n, line, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 12345\r\n\r\n");
            return true;
        });
        for (int i = 0; i < 2; i++) {
            Http1Transport.Response r = t.exchange("HEAD", "/b/k", "127.0.0.1", Map.of(), body(""),
                    Duration.ofSeconds(5));
            assertEquals(200, r.status());
            assertEquals(12345, r.contentLength());
            assertEquals("", read(r));
        }
        assertEquals(1, accepted.get());
    }

    @Test
    void aServerThatNeverAnswersFailsTheCallAtItsTimeout() throws Exception {
        Http1Transport t = start((n, line, out) -> {
            try {
                Thread.sleep(60_000); // never answers within the test
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return false;
        });
        long start = System.nanoTime();
        SocketTimeoutException e = assertThrows(SocketTimeoutException.class,
                () -> t.exchange("GET", "/b/k", "127.0.0.1", Map.of(), body(""), Duration.ofMillis(500)));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= 400 && ms < 10_000, "failed after " + ms + " ms");
        assertTrue(e.getMessage().contains("no answer within") || e.getMessage().contains("timed out"), e.getMessage());
    }

    @Test
    void aServerThatStopsReadingTheBodyFailsTheUploadAtItsTimeout() throws Exception {
        server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
            try {
                open.add(server.accept()); // accepted, never read: the upload fills the socket buffers and blocks
            } catch (IOException ignored) {
                // closed by the test
            }
        });
        Http1Transport t = new Http1Transport(URI.create("http://127.0.0.1:" + server.getLocalPort()), "127.0.0.1",
                Duration.ofSeconds(5));
        byte[] big = new byte[64 << 20];
        Http1Transport.Body body = new Http1Transport.Body() {
            @Override
            public long length() {
                return big.length;
            }

            @Override
            public InputStream open() {
                return new ByteArrayInputStream(big);
            }
        };
        long start = System.nanoTime();
        assertThrows(SocketTimeoutException.class,
                () -> t.exchange("PUT", "/b/big", "127.0.0.1", Map.of(), body, Duration.ofSeconds(1)));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= 900 && ms < 15_000, "failed after " + ms + " ms");
        acceptor.join(5_000);
    }

    @Test
    void aBodyCutShortIsAnErrorNotATruncatedObject() throws Exception {
        Http1Transport t = start((n, line, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part of it");
            return false;
        });
        Http1Transport.Response r = t.exchange("GET", "/b/k", "127.0.0.1", Map.of(), body(""), Duration.ofSeconds(5));
        IOException e = assertThrows(IOException.class, () -> read(r));
        assertTrue(e.getMessage().contains("85 bytes before the body's end"), e.getMessage());
    }

    @Test
    void anHttpsEndpointMustShowACertificateForItsHostFromATrustedCa(@TempDir Path dir) throws Exception {
        TestCertificates ca = TestCertificates.authority("store-ca");
        TestCertificates other = TestCertificates.authority("other-ca");
        TestCertificates.Member good = ca.issue(dir.resolve("good"), "store"); // names localhost
        SSLContext client = context(null, good.ca());
        assertEquals("ok", httpsGet(good, client));
        IOException wrongHost = assertThrows(IOException.class,
                () -> httpsGet(ca.issueNaming(dir.resolve("named"), "store", "s3.example.com"), client));
        assertTrue(String.valueOf(wrongHost.getMessage()).contains("localhost"), wrongHost.toString());
        assertThrows(IOException.class, () -> httpsGet(other.issue(dir.resolve("other"), "store"), client));
    }

    /** One GET to a TLS server on loopback that shows the given certificate; the answer's body. */
    private String httpsGet(TestCertificates.Member serverFiles, SSLContext client) throws Exception {
        SSLContext serverContext = context(serverFiles, null);
        try (SSLServerSocket tlsServer = (SSLServerSocket) serverContext.getServerSocketFactory()
                .createServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            Thread.ofPlatform().daemon().start(() -> {
                try (Socket s = tlsServer.accept()) {
                    InputStream in = s.getInputStream();
                    while (!line(in).isEmpty()) {
                        // the request's head
                    }
                    write(s.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                    s.getInputStream().read(); // until the client closes
                } catch (IOException e) {
                    // a handshake the client refused
                }
            });
            Http1Transport t = new Http1Transport(URI.create("https://localhost:" + tlsServer.getLocalPort()),
                    "localhost", Duration.ofSeconds(5), client.getSocketFactory());
            return read(t.exchange("GET", "/b/k", "localhost", Map.of(), body(""), Duration.ofSeconds(10)));
        }
    }

    /** A TLS context with the key and certificate of files (if any), trusting the CAs in trusted (if any). */
    private static SSLContext context(TestCertificates.Member files, Path trusted) throws Exception {
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        KeyManagerFactory kmf = null;
        if (files != null) {
            Certificate[] chain;
            try (InputStream in = Files.newInputStream(files.cert())) {
                chain = x509.generateCertificates(in).toArray(new Certificate[0]);
            }
            String pem = Files.readString(files.key()).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            PrivateKey key = KeyFactory.getInstance("EC")
                    .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("key", key, "test".toCharArray(), chain);
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, "test".toCharArray());
        }
        TrustManagerFactory tmf = null;
        if (trusted != null) {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, null);
            int i = 0;
            try (InputStream in = Files.newInputStream(trusted)) {
                for (Certificate c : x509.generateCertificates(in)) {
                    ts.setCertificateEntry("ca-" + i++, c);
                }
            }
            tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
        return ctx;
    }
}
